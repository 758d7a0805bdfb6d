//! JSON config text to a `Value`, refusing duplicate object keys. `serde_json::Value` keeps the
//! last of two equal keys silently, so `{"hooks": {...}, "hooks": {}}` would drop every hook
//! of the first; a config is security policy, so a duplicate is an error naming the key.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Parse JSON text; any object with a key twice is an error naming it.
pub fn parse_strict(text: &str) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value.0)
}

struct Strict(Value);

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.insert(key.clone(), v).is_some() {
                return Err(de::Error::custom(format_args!("the key {key:?} appears twice in one object; a JSON parser would keep only the last, so remove or merge the duplicate")));
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_strict;

    #[test]
    fn duplicate_keys_are_refused_with_their_place() {
        assert_eq!(parse_strict(r#"{"a": [1, {"b": null}], "c": 1.5}"#).unwrap(), serde_json::json!({"a": [1, {"b": null}], "c": 1.5}));
        assert_eq!(
            parse_strict(r#"{"hooks": {"PreToolUse": []}, "hooks": {}}"#).unwrap_err(),
            "the key \"hooks\" appears twice in one object; a JSON parser would keep only the last, so remove or merge the duplicate at line 1 column 42"
        );
        assert!(parse_strict(r#"{"a": {"x": 1, "x": 2}}"#).unwrap_err().starts_with("the key \"x\" appears twice"));
        assert!(parse_strict("{} x").is_err());
    }
}

