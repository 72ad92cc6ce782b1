//! Reading a request: JSON bodies and query strings that do not parse are
//! 400s with the parser's words, and numbers are checked against their
//! bounds before anything is allocated for them.

use crate::error::{ApiError, ApiResult};
use axum::Json;
use axum::extract::Query;
use axum::extract::rejection::{JsonRejection, QueryRejection};

/// The body, or a 400 saying what is wrong with it.
pub fn json<T>(body: Result<Json<T>, JsonRejection>) -> ApiResult<T> {
    body.map(|Json(t)| t).map_err(|e| ApiError::malformed(format!("the request body: {}", e.body_text())))
}

/// The query string, or a 400 saying what is wrong with it.
pub fn query<T>(query: Result<Query<T>, QueryRejection>) -> ApiResult<T> {
    query.map(|Query(t)| t).map_err(|e| ApiError::malformed(format!("the query: {}", e.body_text())))
}

/// A count asked for (`what`: "simulations"), `default` when absent: 1 to
/// `max`, else a 400 naming the bound.
pub fn bounded(what: &str, asked: Option<i64>, default: u32, max: u32) -> ApiResult<u32> {
    match asked {
        None => Ok(default.clamp(1, max)),
        Some(n) if (1..=max as i64).contains(&n) => Ok(n as u32),
        Some(n) => Err(ApiError::malformed(format!("{what} {n}: expected 1 to {max}"))),
    }
}
