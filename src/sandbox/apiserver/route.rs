//! Which endpoint a request path names.

/// A request for objects of one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    pub group: String,
    pub version: String,
    pub namespace: Option<String>,
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Version,
    /// `/api`: the legacy core group's versions.
    CoreVersions,
    /// `/apis`: every other group.
    Groups,
    Group(String),
    /// `/api/v1` (group "") or `/apis/<group>/<version>`.
    GroupVersion(String, String),
    OpenApiV3Index,
    OpenApiV3(String),
    OpenApiV2,
    Health,
    /// `/sandbox/...`: fault controls and request counts.
    Sandbox(Vec<String>),
    Resource(ResourcePath),
    Unknown,
}

/// Namespace subresources, which share the shape of a namespaced collection path.
const NAMESPACE_SUBRESOURCES: &[&str] = &["status", "finalize"];

pub fn parse(path: &str) -> Route {
    let segs: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    match segs.as_slice() {
        ["version"] => Route::Version,
        ["healthz" | "readyz" | "livez", ..] => Route::Health,
        ["api"] => Route::CoreVersions,
        ["apis"] => Route::Groups,
        ["apis", g] => Route::Group(g.to_string()),
        ["openapi", "v3"] => Route::OpenApiV3Index,
        ["openapi", "v3", rest @ ..] => Route::OpenApiV3(rest.join("/")),
        ["openapi", "v2"] => Route::OpenApiV2,
        ["sandbox", rest @ ..] => Route::Sandbox(rest.iter().map(|s| s.to_string()).collect()),
        ["api", v, rest @ ..] => resource_route("", v, rest),
        ["apis", g, v, rest @ ..] => resource_route(g, v, rest),
        _ => Route::Unknown,
    }
}

fn resource_route(group: &str, version: &str, rest: &[&str]) -> Route {
    if rest.is_empty() {
        return Route::GroupVersion(group.to_string(), version.to_string());
    }
    let (namespace, rest) = match rest {
        ["namespaces", ns, tail @ ..] if names_namespaced_objects(tail) => {
            (Some(ns.to_string()), tail)
        }
        _ => (None, rest),
    };
    let path = |resource: &str, name: Option<&str>, sub: Option<&str>| {
        Route::Resource(ResourcePath {
            group: group.to_string(),
            version: version.to_string(),
            namespace: namespace.clone(),
            resource: resource.to_string(),
            name: name.map(str::to_string),
            subresource: sub.map(str::to_string),
        })
    };
    match rest {
        [r] => path(r, None, None),
        [r, n] => path(r, Some(n), None),
        [r, n, s] => path(r, Some(n), Some(s)),
        _ => Route::Unknown,
    }
}

/// Query parameters, percent-decoded.
#[derive(Debug, Clone, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(query: Option<&str>) -> Query {
        let pairs = query
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (decode(k), decode(v))
            })
            .collect();
        Query(pairs)
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1"))
    }

    pub fn all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match hex_byte(bytes.get(i + 1..i + 3)) {
                Some(b) => {
                    out.push(b);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// After `namespaces/<ns>/`: a resource of that namespace, not a namespace subresource.
fn names_namespaced_objects(tail: &[&str]) -> bool {
    match tail {
        [] => false,
        [only] => !NAMESPACE_SUBRESOURCES.contains(only),
        _ => true,
    }
}

fn hex_byte(pair: Option<&[u8]>) -> Option<u8> {
    let text = std::str::from_utf8(pair?).ok()?;
    u8::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(g: &str, ns: Option<&str>, r: &str, n: Option<&str>, s: Option<&str>) -> Route {
        Route::Resource(ResourcePath {
            group: g.into(),
            version: "v1".into(),
            namespace: ns.map(Into::into),
            resource: r.into(),
            name: n.map(Into::into),
            subresource: s.map(Into::into),
        })
    }

    #[test]
    fn paths() {
        let rows = [
            (
                "discovery of the core group",
                "/api/v1",
                Route::GroupVersion("".into(), "v1".into()),
            ),
            (
                "cluster-scoped list",
                "/api/v1/nodes",
                res("", None, "nodes", None, None),
            ),
            (
                "namespaces are cluster-scoped",
                "/api/v1/namespaces/team",
                res("", None, "namespaces", Some("team"), None),
            ),
            (
                "namespace status",
                "/api/v1/namespaces/team/status",
                res("", None, "namespaces", Some("team"), Some("status")),
            ),
            (
                "namespaced list",
                "/api/v1/namespaces/team/pods",
                res("", Some("team"), "pods", None, None),
            ),
            (
                "eviction",
                "/api/v1/namespaces/team/pods/p/eviction",
                res("", Some("team"), "pods", Some("p"), Some("eviction")),
            ),
            (
                "group resource",
                "/apis/policy/v1/namespaces/a/poddisruptionbudgets/b/status",
                res(
                    "policy",
                    Some("a"),
                    "poddisruptionbudgets",
                    Some("b"),
                    Some("status"),
                ),
            ),
            (
                "too deep",
                "/api/v1/namespaces/a/pods/b/c/d",
                Route::Unknown,
            ),
            (
                "openapi document",
                "/openapi/v3/apis/apps/v1",
                Route::OpenApiV3("apis/apps/v1".into()),
            ),
        ];
        for (rule, path, want) in rows {
            assert_eq!(parse(path), want, "{rule}");
        }
    }

    #[test]
    fn query_decoding() {
        let q = Query::parse(Some("labelSelector=app%3Dweb%2Ctier+in+(a)&watch=1&x"));
        assert_eq!(q.get("labelSelector"), Some("app=web,tier in (a)"));
        assert!(q.flag("watch"));
        assert_eq!(q.get("x"), Some(""));
        assert_eq!(Query::parse(Some("a=%zz%4")).get("a"), Some("%zz%4"));
    }
}
