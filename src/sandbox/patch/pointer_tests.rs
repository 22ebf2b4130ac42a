//! RFC 6901 JSON pointers: the examples of section 5.

use super::*;
use serde_json::json;

#[test]
fn rfc6901_section5_pointers() {
    let doc = json!({
        "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4,
        "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8
    });
    let cases: Vec<(&str, Value)> = vec![
        ("", doc.clone()),
        ("/foo", json!(["bar", "baz"])),
        ("/foo/0", json!("bar")),
        ("/", json!(0)),
        ("/a~1b", json!(1)),
        ("/c%d", json!(2)),
        ("/e^f", json!(3)),
        ("/g|h", json!(4)),
        ("/i\\j", json!(5)),
        ("/k\"l", json!(6)),
        ("/ ", json!(7)),
        ("/m~0n", json!(8)),
    ];
    for (text, expected) in cases {
        let found = parse(text).and_then(|tokens| get(&doc, &tokens).cloned());
        assert_eq!(found, Ok(expected), "pointer {text:?}");
    }
}
