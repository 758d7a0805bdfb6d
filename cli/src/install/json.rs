//! JSON that keeps its keys in the order the file had them: the runtimes' settings files are
//! the user's, and a rewrite that sorted every key would bury hookhost's change in noise.
//! (serde_json's own map sorts unless its `preserve_order` feature is on, and turning that on
//! would change the key order of every answer hookhost writes.)

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

/// A JSON value whose objects keep their keys' order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn obj() -> Json {
        Json::Object(Vec::new())
    }

    pub(crate) fn str(s: impl Into<String>) -> Json {
        Json::String(s.into())
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(fields) => fields.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Set `key` (in place when it exists, else at the end). `self` must be an object.
    pub(crate) fn set(&mut self, key: &str, value: Json) {
        if let Json::Object(fields) = self {
            match fields.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => fields.push((key.to_string(), value)),
            }
        }
    }

    pub(crate) fn remove(&mut self, key: &str) -> Option<Json> {
        match self {
            Json::Object(fields) => {
                let at = fields.iter().position(|(k, _)| k == key)?;
                Some(fields.remove(at).1)
            }
            _ => None,
        }
    }

    /// The object under `key`, made (empty) when missing. `None` when `self` is not an object or
    /// `key` holds something else.
    pub(crate) fn entry_obj(&mut self, key: &str) -> Option<&mut Json> {
        if self.get(key).is_none() {
            self.set(key, Json::obj());
        }
        self.get_mut(key).filter(|v| matches!(v, Json::Object(_)))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn fields(&self) -> &[(String, Json)] {
        match self {
            Json::Object(fields) => fields,
            _ => &[],
        }
    }

    /// The value as serde_json's (keys then sorted): for hashing and comparing.
    pub(crate) fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// Parse a settings file's text. An empty (or all-blank) file is an empty object.
    pub(crate) fn parse(text: &str) -> Result<Json, serde_json::Error> {
        if text.trim().is_empty() {
            return Ok(Json::obj());
        }
        serde_json::from_str(text)
    }

    /// The text to write: indented as `like` was (its second line's indentation; two spaces for
    /// a new file), with a final newline.
    pub(crate) fn render(&self, like: Option<&str>) -> String {
        let indent = like
            .and_then(|t| t.lines().nth(1))
            .map(|l| &l[..l.len() - l.trim_start().len()])
            .filter(|i| !i.is_empty() && i.chars().all(|c| c == ' ' || c == '\t'))
            .unwrap_or("  ");
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Writing to a Vec cannot fail, and every value here came from JSON.
        let _ = self.serialize(&mut ser);
        let mut text = String::from_utf8(out).unwrap_or_default();
        text.push('\n');
        text
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(n).map(Json::Number).ok_or_else(|| E::custom("a number JSON cannot hold"))
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::String(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::String(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut fields: Vec<(String, Json)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    // A repeated key: the last one wins, as for every JSON reader the runtimes use.
                    match fields.iter_mut().find(|(key, _)| *key == k) {
                        Some((_, old)) => *old = v,
                        None => fields.push((k, v)),
                    }
                }
                Ok(Json::Object(fields))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_indentation_is_kept() {
        let text = "{\n    \"zeta\": 1,\n    \"alpha\": {\"b\": [1, 2.5, null], \"a\": true}\n}\n";
        let v = Json::parse(text).unwrap();
        assert_eq!(v.render(Some(text)), "{\n    \"zeta\": 1,\n    \"alpha\": {\n        \"b\": [\n            1,\n            2.5,\n            null\n        ],\n        \"a\": true\n    }\n}\n");
        assert_eq!(Json::parse("  \n").unwrap(), Json::obj());
        assert!(Json::parse("{\"a\": 1, // no\n}").is_err());
    }
}
