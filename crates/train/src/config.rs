//! A config as JSON laid over a task's defaults: the keys a file names
//! replace the preset's, nested sections key by key, and a key the config
//! does not have, or a value of the wrong type, is refused by its path in
//! the file. A file is read strictly: a key given twice is an error, and
//! the line of a refused key can be found in the file's text.

use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserializer, Serialize};
use serde_json::{Map, Value};

/// `defaults` with `overrides` laid over them key by key, nested sections
/// included (`{"mcts": {"simulations": 200}}` changes that one field and
/// keeps the preset's others). An object naming its variant (`"kind"`)
/// replaces the old one whole. An unknown key, or a value of the wrong
/// type, is an error naming its path (`dqn.replay.capcity`,
/// `dqn.gamma: invalid type: string "x", expected f32`); [`error_key`]
/// gives the path back.
///
/// ```
/// use minnow_train::config::layered;
/// use minnow_train::supervised::DigitsConfig;
///
/// let config = layered(DigitsConfig::default(), &serde_json::json!({"hidden": 64}))?;
/// assert_eq!((config.hidden, config.batch), (64, DigitsConfig::default().batch));
/// let typo = layered(DigitsConfig::default(), &serde_json::json!({"hiden": 64})).unwrap_err();
/// assert!(typo.to_string().starts_with("unknown field `hiden`"), "{typo}");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn layered<T: Serialize + DeserializeOwned>(defaults: T, overrides: &Value) -> Result<T, serde_json::Error> {
    if !overrides.is_object() {
        return Err(serde_json::Error::custom("expected a JSON object of config keys"));
    }
    let mut merged = serde_json::to_value(defaults)?;
    merge(&mut merged, overrides.clone());
    serde_path_to_error::deserialize(merged).map_err(keyed)
}

/// Lays `overrides` over `into` key by key. An object naming its variant
/// (`"kind"`) replaces the old one whole: a new variant keeps none of the
/// old one's fields.
fn merge(into: &mut Value, overrides: Value) {
    match (into, overrides) {
        (Value::Object(fields), Value::Object(overrides)) if !overrides.contains_key("kind") => {
            for (key, value) in overrides {
                match fields.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        fields.insert(key, value);
                    }
                }
            }
        }
        (into, overrides) => *into = overrides,
    }
}

/// serde's error with the path of the key it concerns: an unknown key as
/// `` unknown field `dqn.replay.capcity` ``, any other error after its
/// key's path (`dqn.gamma: ...`).
fn keyed(e: serde_path_to_error::Error<serde_json::Error>) -> serde_json::Error {
    let path = e.path().to_string();
    let inner = e.into_inner().to_string();
    let unknown = inner.strip_prefix("unknown field `").and_then(|rest| rest.split_once('`'));
    match unknown {
        // The path ends with the unknown key, except inside a section
        // serde reads through a buffer (a variant named by "kind").
        Some((key, rest)) => {
            let full = match path.as_str() {
                "." => key.to_string(),
                p if p == key || p.ends_with(&format!(".{key}")) => path.clone(),
                p => format!("{p}.{key}"),
            };
            serde_json::Error::custom(format!("unknown field `{full}`{rest}"))
        }
        None if path == "." => serde_json::Error::custom(inner),
        None => serde_json::Error::custom(format!("{path}: {inner}")),
    }
}

/// The dotted path of the key a [`layered`] error names, if it names one.
pub fn error_key(e: &serde_json::Error) -> Option<String> {
    let text = e.to_string();
    if let Some(rest) = text.strip_prefix("unknown field `") {
        return rest.split_once('`').map(|(path, _)| path.to_string());
    }
    let (path, _) = text.split_once(": ")?;
    let is_path = !path.is_empty() && path.split('.').all(|k| !k.is_empty() && k.chars().all(is_key_char));
    is_path.then(|| path.to_string())
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '[' || c == ']'
}

/// The largest config file read (a config is a few kilobytes; this
/// refuses `/dev/zero` and mistaken data files before reading them whole).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Parses a config file's text: JSON whose objects name each key once
/// (`{"lr": 0.1, "lr": 0.001}` is refused with the line and column
/// instead of keeping the last).
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON value whose objects refuse a repeated key.
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.contains_key(&key) {
                return Err(A::Error::custom(format!("duplicate key `{key}`")));
            }
            let value = map.next_value_seed(Strict)?;
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
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
}

/// The line (from 1) of the key at dotted `path` in a JSON file's `text`,
/// or of its innermost section the file names, found by walking the
/// text's objects; `None` if the text names none of it. For pointing at a
/// refused key in the file it came from.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let want: Vec<&str> = path.split('.').collect();
    // The keys of the objects the walk is inside, and the key just read
    // in the innermost one.
    let mut keys: Vec<Option<String>> = Vec::new();
    let (mut line, mut best) = (1, None::<(usize, usize)>);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '{' => keys.push(None),
            '[' => keys.push(Some(String::new())),
            '}' | ']' => {
                keys.pop();
            }
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        '\n' => line += 1,
                        c => s.push(c),
                    }
                }
                while chars.peek().is_some_and(|c| c.is_whitespace() && *c != '\n') {
                    chars.next();
                }
                if chars.peek() == Some(&':') {
                    let depth = keys.len();
                    if let Some(last) = keys.last_mut() {
                        *last = Some(s);
                    }
                    let at: Vec<&str> = keys.iter().map(|k| k.as_deref().unwrap_or("")).collect();
                    let matched = at.iter().zip(&want).take_while(|(a, b)| a == b).count();
                    if matched == depth && best.is_none_or(|(m, _)| matched > m) {
                        best = Some((matched, line));
                    }
                }
            }
            _ => {}
        }
    }
    best.map(|(_, line)| line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Serialize, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        lr: f32,
        eval: Inner,
        training: Inner,
    }

    #[derive(Debug, Serialize, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        every: u64,
    }

    fn defaults() -> Outer {
        Outer { lr: 0.1, eval: Inner { every: 1 }, training: Inner { every: 1 } }
    }

    fn refused(file: &str) -> String {
        layered(defaults(), &parse_strict(file).unwrap()).unwrap_err().to_string()
    }

    #[test]
    fn a_refused_key_is_named_by_its_own_path() {
        // The valid `eval.every` is not blamed for `training.every`.
        let e = refused(r#"{"eval": {"every": 2}, "training": {"every": "3"}}"#);
        assert!(e.starts_with(r#"training.every: invalid type: string "3", expected u64"#), "{e}");
        let e = refused(r#"{"eval": {"every": 2}, "training": {"evry": 3}}"#);
        assert!(e.starts_with("unknown field `training.evry`"), "{e}");
        assert!(refused(r#"{"lr": "0.1"}"#).starts_with("lr: invalid type: string"));
        assert!(refused(r#"{"lr2": 1}"#).starts_with("unknown field `lr2`"));
    }

    #[test]
    fn the_key_of_an_error_is_its_path() {
        let key = |file: &str| error_key(&layered(defaults(), &parse_strict(file).unwrap()).unwrap_err());
        assert_eq!(key(r#"{"training": {"every": -1}}"#).as_deref(), Some("training.every"));
        assert_eq!(key(r#"{"training": {"evry": 3}}"#).as_deref(), Some("training.evry"));
        assert_eq!(key(r#"{"lr": []}"#).as_deref(), Some("lr"));
    }

    #[test]
    fn a_key_given_twice_is_refused_with_its_line() {
        let e = parse_strict("{\n  \"lr\": 0.1,\n  \"lr\": 0.001\n}").unwrap_err();
        assert!(e.to_string().starts_with("duplicate key `lr` at line 3"), "{e}");
        let e = parse_strict(r#"{"eval": {"every": 1, "every": 2}}"#).unwrap_err();
        assert!(e.to_string().starts_with("duplicate key `every`"), "{e}");
        assert!(parse_strict(r#"{"eval": {"every": 1}, "training": {"every": 2}}"#).is_ok());
        assert!(parse_strict(r#"{"a": 1} {"b": 2}"#).is_err());
    }

    #[test]
    fn a_key_is_found_on_its_line() {
        let text = "{\n  \"eval\": {\"every\": 2},\n  \"training\": {\n    \"every\": 3\n  },\n  \"s\": \"a\\\"b\"\n}";
        assert_eq!(line_of(text, "training.every"), Some(4));
        assert_eq!(line_of(text, "eval.every"), Some(2));
        assert_eq!(line_of(text, "training"), Some(3));
        assert_eq!(line_of(text, "training.missing"), Some(3));
        assert_eq!(line_of(text, "s"), Some(6));
        assert_eq!(line_of(text, "nowhere"), None);
    }
}
