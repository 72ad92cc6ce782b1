//! Every handler's error: a status and a message the page shows as it
//! is. 400 for input that does not parse or is out of bounds, 404 for a
//! file or agent that is not there, 422 for input that parses but the
//! game or the task refuses (an illegal move, a run of another task),
//! 500 for the server's own failures.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A refused request: the status and what to tell the person.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The message, a sentence for the page.
    pub message: String,
}

impl ApiError {
    /// Input that does not parse, or a number out of bounds.
    pub fn malformed(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, message: message.into() }
    }

    /// A file, a run or an agent that is not there.
    pub fn missing(message: impl Into<String>) -> Self {
        Self { status: StatusCode::NOT_FOUND, message: message.into() }
    }

    /// Well-formed input the game or the task refuses.
    pub fn refused(message: impl Into<String>) -> Self {
        Self { status: StatusCode::UNPROCESSABLE_ENTITY, message: message.into() }
    }

    /// The server's own failure (a search that errs, a worker that died).
    pub fn internal(message: impl Into<String>) -> Self {
        Self { status: StatusCode::INTERNAL_SERVER_ERROR, message: message.into() }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

/// What every handler returns.
pub type ApiResult<T> = Result<T, ApiError>;
