//! Building HTTP answers.

use super::status::ApiError;
use crate::sandbox::go_quote::go_quote;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use http::{HeaderValue, Response, StatusCode, header};
use http_body::Frame;
use http_body_util::{BodyExt, Full, StreamBody, combinators::UnsyncBoxBody};
use serde_json::Value;
use std::convert::Infallible;

pub type ResponseBody = UnsyncBoxBody<Bytes, Infallible>;

/// An answer before it is encoded.
pub enum Reply {
    Json(u16, Value, Vec<String>),
    Stream(std::pin::Pin<Box<dyn Stream<Item = Bytes> + Send>>),
    Error(ApiError),
}

impl From<ApiError> for Reply {
    fn from(e: ApiError) -> Reply {
        Reply::Error(e)
    }
}

impl Reply {
    pub fn ok(value: Value) -> Reply {
        Reply::Json(200, value, Vec::new())
    }

    pub fn code(&self) -> u16 {
        match self {
            Reply::Json(code, ..) => *code,
            Reply::Stream(_) => 200,
            Reply::Error(e) => e.code,
        }
    }

    pub fn into_response(self) -> Response<ResponseBody> {
        match self {
            Reply::Json(code, value, warnings) => json_response(code, &value, &warnings),
            Reply::Error(e) => json_response(e.code, &e.status(), &[]),
            Reply::Stream(stream) => {
                let body = StreamBody::new(stream.map(|b| Ok::<_, Infallible>(Frame::data(b))));
                let mut response = Response::new(UnsyncBoxBody::new(body));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
        }
    }
}

fn json_response(code: u16, value: &Value, warnings: &[String]) -> Response<ResponseBody> {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed_unsync());
    *response.status_mut() =
        StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    for w in warnings {
        if let Ok(v) = HeaderValue::from_str(&format!("299 - {}", go_quote(w))) {
            headers.append(header::WARNING, v);
        }
    }
    response
}
