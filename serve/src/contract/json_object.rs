//! [`JsonObject`]: one JSON object as text, serialised once from a tool's answer struct and
//! carried so to the transports.
//!
//! Why not a `serde_json::Value`: building the tree from the answer struct, serialising it
//! again to count it against the response budget and to send it, then dropping it, took about
//! a tenth of a statute search's CPU in perf (lay-dev at concurrency 8). The text is made once;
//! the envelope's members are put before it and the budget's mark after it as text. Only an
//! answer over the response budget is read back into a tree, to drop rows
//! ([`crate::app::budget`]).
//!
//! Invariant: the text is a JSON object as `serde_json` writes it (compact, no whitespace
//! between tokens), so it starts with `{` and ends with `}`.

use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonObject(String);

impl JsonObject {
    /// `value` serialised; an error when it is not an object (an answer struct always is).
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<JsonObject, String> {
        let text = serde_json::to_string(value).map_err(|e| format!("an answer did not serialise: {e}"))?;
        if text.starts_with('{') && text.ends_with('}') {
            Ok(JsonObject(text))
        } else {
            Err(format!("an answer serialised to {}, not an object", text.chars().take(80).collect::<String>()))
        }
    }

    pub fn from_map(map: &Map<String, Value>) -> JsonObject {
        JsonObject(serde_json::to_string(map).expect("a JSON map serialises"))
    }

    /// The object as a tree: for the rare answer that is cut to the budget, and for tests.
    pub fn to_map(&self) -> Map<String, Value> {
        serde_json::from_str(&self.0).expect("a JsonObject holds a JSON object")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// Bytes of the text, as the response budget counts them.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0 == "{}"
    }

    /// `head`'s members, then this object's: `{"a":1}` after `{"b":2}` is `{"b":2,"a":1}`.
    /// The caller keeps the keys apart (a key in both would be sent twice).
    pub fn after(self, head: JsonObject) -> JsonObject {
        let members = &self.0[1..self.0.len() - 1];
        if members.is_empty() {
            return head;
        }
        let mut text = head.0;
        text.pop();
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(members);
        text.push('}');
        JsonObject(text)
    }

    /// Appends the member `key: value` (a key the object does not hold yet).
    pub fn push(&mut self, key: &str, value: &Value) {
        let member = Self::member(key, value);
        self.0.pop();
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push_str(&member);
        self.0.push('}');
    }

    /// Bytes [`JsonObject::push`] of `key: value` would add.
    pub fn push_len(&self, key: &str, value: &Value) -> usize {
        Self::member(key, value).len() + usize::from(self.0.len() > 2)
    }

    /// `"key":value` as JSON writes it.
    fn member(key: &str, value: &Value) -> String {
        let mut m = serde_json::to_string(key).expect("a string serialises");
        m.push(':');
        m.push_str(&serde_json::to_string(value).expect("a JSON value serialises"));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        JsonObject::of(&v).unwrap()
    }

    #[test]
    fn a_payload_after_a_head_keeps_both_in_order_and_stays_one_object() {
        let joined = obj(json!({"a": 1, "b": "x,}"})).after(obj(json!({"api_version": "1", "g": null})));
        assert_eq!(joined.as_str(), r#"{"api_version":"1","g":null,"a":1,"b":"x,}"}"#);
        let keys: Vec<String> = joined.to_map().keys().cloned().collect();
        assert_eq!(keys, ["api_version", "g", "a", "b"]);
        assert_eq!(obj(json!({})).after(obj(json!({"h": 1}))).as_str(), r#"{"h":1}"#);
        assert_eq!(obj(json!({"p": 1})).after(obj(json!({}))).as_str(), r#"{"p":1}"#);
    }

    #[test]
    fn a_pushed_member_is_the_last_and_its_length_is_known_before() {
        for start in [json!({}), json!({"rows": [1, 2], "s": "\"q\""})] {
            let mut o = obj(start.clone());
            let value = json!(false);
            let expected = o.len() + o.push_len("payload_truncated", &value);
            o.push("payload_truncated", &value);
            assert_eq!(o.len(), expected);
            let mut m = start.as_object().unwrap().clone();
            m.insert("payload_truncated".into(), value);
            assert_eq!(o, JsonObject::from_map(&m), "the same text as inserting into the map");
        }
        let mut o = obj(json!({"a": 1}));
        o.push("k\"ey", &json!({"n": [1, "é"]}));
        assert_eq!(o.to_map()["k\"ey"], json!({"n": [1, "é"]}));
    }

    #[test]
    fn only_an_object_is_a_json_object() {
        assert!(JsonObject::of(&json!([1])).is_err());
        assert!(JsonObject::of(&json!("{}")).is_err());
        assert!(JsonObject::of(&json!({})).unwrap().is_empty());
    }
}
