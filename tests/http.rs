//! Requests to the dashboard through its router, with no socket, for the
//! page tests: `app(state).oneshot(request)`.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::response::Response;
use benchlog::web::app;
use benchlog::web::state::AppState;
use http_body_util::BodyExt;
use tower::ServiceExt;

pub async fn send(state: &AppState, request: Request<Body>) -> Response {
    app(state.clone()).oneshot(request).await.unwrap()
}

/// Status and body of a response, the body as text.
pub async fn read(response: Response) -> (StatusCode, String) {
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

pub fn get_request(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

pub async fn get(state: &AppState, uri: &str) -> (StatusCode, String) {
    read(send(state, get_request(uri)).await).await
}

/// An answer with the headers the caching tests look at, its body as
/// bytes.
pub struct Answer {
    pub status: StatusCode,
    pub content_type: String,
    pub etag: Option<String>,
    pub cache_control: Option<String>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }
}

/// A GET of `uri`, sent with `If-None-Match` when a tag is given.
pub async fn fetch(state: &AppState, uri: &str, if_none_match: Option<&str>) -> Answer {
    let mut request = get_request(uri);
    if let Some(tag) = if_none_match {
        request
            .headers_mut()
            .insert(header::IF_NONE_MATCH, tag.parse().unwrap());
    }
    let response = send(state, request).await;
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|v: &header::HeaderValue| v.to_str().unwrap().to_owned())
    };
    Answer {
        status: response.status(),
        content_type: header(header::CONTENT_TYPE).unwrap_or_default(),
        etag: header(header::ETAG),
        cache_control: header(header::CACHE_CONTROL),
        body: response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    }
}

/// A GET that must answer 200.
pub async fn get_ok(state: &AppState, uri: &str) -> Answer {
    let answer = fetch(state, uri, None).await;
    assert_eq!(answer.status, StatusCode::OK, "{uri}: {}", answer.text());
    answer
}

/// Every path `app` routes, as written in its router (`/threads/{id}`),
/// but the files under `/static`. axum lists them only in its `Debug`
/// output, so they are read from there: a change of that format fails
/// here, loudly, rather than listing nothing.
pub fn routed_paths(state: &AppState) -> Vec<String> {
    let router = format!("{:?}", app(state.clone()));
    // The main router's paths; the fallback router's follow it.
    let start = router
        .find("paths: {")
        .expect("axum's Router Debug lists its paths");
    let end = router[start..]
        .find("fallback_router")
        .map_or(router.len(), |end| start + end);
    let mut paths: Vec<String> = router[start..end]
        .split("RouteId(")
        .skip(1)
        .map(|entry| {
            let path = &entry[entry.find('"').expect("a quoted path") + 1..];
            path[..path.find('"').unwrap()].to_owned()
        })
        .filter(|path| !path.starts_with("/static"))
        .collect();
    paths.sort();
    assert!(
        paths.iter().any(|path| path == "/") && paths.iter().any(|path| path == "/healthz"),
        "no routes read from the router: {paths:?}"
    );
    paths
}

/// The routed paths a GET is answered on (the others answer 405), with
/// `id` put in for a `{id}` in the path to ask.
pub async fn get_routes(state: &AppState, id: &str) -> Vec<String> {
    let mut routes = Vec::new();
    for path in routed_paths(state) {
        let (status, _) = get(state, &path.replace("{id}", id)).await;
        if status != StatusCode::METHOD_NOT_ALLOWED {
            routes.push(path);
        }
    }
    routes
}

/// Whether `uri` (its query aside) is a request for the routed `path`,
/// whose `{...}` segments match any one segment.
pub fn requests_route(uri: &str, path: &str) -> bool {
    let uri = uri.split(['?', '#']).next().unwrap();
    let (asked, routed): (Vec<&str>, Vec<&str>) =
        (uri.split('/').collect(), path.split('/').collect());
    asked.len() == routed.len()
        && asked
            .iter()
            .zip(&routed)
            .all(|(asked, routed)| asked == routed || routed.starts_with('{'))
}

/// Status, `Content-Type` (empty when there is none) and body of a GET.
pub async fn get_typed(state: &AppState, uri: &str) -> (StatusCode, String, String) {
    let response = send(state, get_request(uri)).await;
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let (status, body) = read(response).await;
    (status, content_type, body)
}

/// A POST of `body` as it is, declared as `content_type`.
pub fn raw_post(uri: &str, content_type: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .unwrap()
}

/// A urlencoded POST of `pairs` to `uri`.
pub fn post_form(uri: &str, pairs: &[(&str, &str)]) -> Request<Body> {
    let body = serde_urlencoded::to_string(pairs).unwrap();
    raw_post(uri, "application/x-www-form-urlencoded", body)
}

/// The upload form with `bytes` pasted, percent-encoded byte by byte as a
/// browser sends a form in the page's charset (serde_urlencoded wants text).
pub fn paste_bytes(bytes: &[u8]) -> Request<Body> {
    let mut body = b"text=".to_vec();
    for byte in bytes {
        body.extend_from_slice(format!("%{byte:02X}").as_bytes());
    }
    raw_post("/upload", "application/x-www-form-urlencoded", body)
}

/// A urlencoded POST that changes a submission, carrying the admin token
/// of the test server.
pub fn edit_form(uri: &str, pairs: &[(&str, &str)]) -> Request<Body> {
    let mut pairs = pairs.to_vec();
    pairs.push(("token", crate::support::ADMIN_TOKEN));
    post_form(uri, &pairs)
}

const BOUNDARY: &str = "benchlog-page-test-boundary";

/// A multipart upload with the given (field, file name, bytes) parts.
pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> Request<Body> {
    let mut body = Vec::new();
    for (field, file_name, bytes) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let disposition = match file_name {
            Some(name) => format!(
                "Content-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            ),
            None => format!("Content-Disposition: form-data; name=\"{field}\"\r\n\r\n"),
        };
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    Request::post("/upload")
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(Body::from(body))
        .unwrap()
}

/// The redirect target of a response that must be a 303.
pub fn see_other(response: &Response) -> String {
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    response
        .headers()
        .get(header::LOCATION)
        .expect("a redirect has a Location")
        .to_str()
        .unwrap()
        .to_owned()
}

/// Pastes `text` into the upload form; returns the submission's address.
pub async fn paste(state: &AppState, text: &str) -> String {
    see_other(&send(state, post_form("/upload", &[("text", text)])).await)
}

/// Pastes `text` as a browser would; returns the submission's address
/// and the cookies the answer set, as a `Cookie` header value (the
/// uploader's edit token).
pub async fn paste_keeping_cookies(state: &AppState, text: &str) -> (String, String) {
    let response = send(state, post_form("/upload", &[("text", text)])).await;
    let location = see_other(&response);
    (location, cookies_of(&response))
}

/// The cookies a response sets, as a `Cookie` header value.
pub fn cookies_of(response: &Response) -> String {
    response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|value| {
            let value = value.to_str().unwrap();
            value.split(';').next().unwrap().to_owned()
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `request` carrying `cookies` (a `Cookie` header value).
pub fn with_cookies(mut request: Request<Body>, cookies: &str) -> Request<Body> {
    request
        .headers_mut()
        .insert(header::COOKIE, cookies.parse().unwrap());
    request
}

/// A GET carrying cookies.
pub async fn get_with_cookies(state: &AppState, uri: &str, cookies: &str) -> (StatusCode, String) {
    read(send(state, with_cookies(get_request(uri), cookies)).await).await
}

/// The `href`s of links with this class, as a browser reads them (askama
/// writes `&` in attributes as `&#38;`).
pub fn links_with_class(page: &str, class: &str) -> Vec<String> {
    let needle = format!(r#"class="{class}" href=""#);
    page.match_indices(&needle)
        .map(|(at, _)| {
            let start = at + needle.len();
            let end = start + page[start..].find('"').unwrap();
            page[start..end].replace("&#38;", "&").replace("&amp;", "&")
        })
        .collect()
}

pub fn fixture(relative: &str) -> String {
    std::fs::read_to_string(crate::support::repo_path(relative)).unwrap()
}
