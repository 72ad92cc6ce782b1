//! A config as JSON laid over a task's defaults: the keys a file names
//! replace the preset's, nested sections key by key, and a key the config
//! does not have is refused by its path in the file.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// `defaults` with `overrides` laid over them key by key, nested sections
/// included (`{"mcts": {"simulations": 200}}` changes that one field and
/// keeps the preset's others). An object naming its variant (`"kind"`)
/// replaces the old one whole. An unknown key, or a value of the wrong
/// type, is an error naming its path (`dqn.replay.capcity`).
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
        return Err(serde::de::Error::custom("expected a JSON object of config keys"));
    }
    let mut merged = serde_json::to_value(defaults)?;
    merge(&mut merged, overrides.clone());
    serde_json::from_value(merged).map_err(|e| with_key_path(e, overrides))
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

/// serde names an unknown key without its section; this names it by its
/// path in the overrides (`dqn.replay.capcity`). A value error that starts
/// with its key (`inference: expected "f32" or "bf16", found "bf17"`) gets
/// the key's path the same way (`mcts.inference: ...`).
fn with_key_path(e: serde_json::Error, overrides: &Value) -> serde_json::Error {
    let text = e.to_string();
    if let Some((key, rest)) = text.strip_prefix("unknown field `").and_then(|t| t.split_once('`')) {
        return match key_path(overrides, key) {
            Some(path) if path != key => serde::de::Error::custom(format!("unknown field `{path}`{rest}")),
            _ => e,
        };
    }
    let Some((key, rest)) = text.split_once(": ") else { return e };
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return e;
    }
    match key_path(overrides, key) {
        Some(path) if path != key => serde::de::Error::custom(format!("{path}: {rest}")),
        _ => e,
    }
}

/// The first path to `key` in `value`, sections joined by dots.
fn key_path(value: &Value, key: &str) -> Option<String> {
    let Value::Object(fields) = value else { return None };
    fields.iter().find_map(|(k, v)| if k == key { Some(k.clone()) } else { Some(format!("{k}.{}", key_path(v, key)?)) })
}
