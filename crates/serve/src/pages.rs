//! The pages: plain HTML, JavaScript and CSS compiled into the binary,
//! so the server needs no files beside it and the pages no build step.

use axum::http::header;
use axum::response::IntoResponse;

/// The file name and content type of each asset under `/assets/`.
const ASSETS: [(&str, &str, &str); 5] = [
    ("style.css", "text/css; charset=utf-8", include_str!("../assets/style.css")),
    ("board.js", "text/javascript; charset=utf-8", include_str!("../assets/board.js")),
    ("play.js", "text/javascript; charset=utf-8", include_str!("../assets/play.js")),
    ("analyse.js", "text/javascript; charset=utf-8", include_str!("../assets/analyse.js")),
    ("watch.js", "text/javascript; charset=utf-8", include_str!("../assets/watch.js")),
];

fn html(body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body)
}

pub async fn index() -> impl IntoResponse {
    html(include_str!("../assets/index.html"))
}

pub async fn play() -> impl IntoResponse {
    html(include_str!("../assets/play.html"))
}

pub async fn analyse() -> impl IntoResponse {
    html(include_str!("../assets/analyse.html"))
}

pub async fn watch() -> impl IntoResponse {
    html(include_str!("../assets/watch.html"))
}

pub async fn asset(
    axum::extract::Path(name): axum::extract::Path<String>,
) -> Result<impl IntoResponse, crate::error::ApiError> {
    let (_, kind, body) = ASSETS
        .iter()
        .find(|(file, _, _)| *file == name)
        .ok_or_else(|| crate::error::ApiError::missing(format!("no asset '{name}'")))?;
    Ok(([(header::CONTENT_TYPE, *kind)], *body))
}
