//! `--config` files from a hostile user: any mix of real keys at any depth,
//! misspelt keys and values of any type. Reading one is an error or a
//! config that holds every value the file gave (nothing silently dropped
//! or defaulted), never a panic.

use super::layered;
use minnow_train::supervised::DigitsConfig;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Every leaf's dotted path in `value`.
fn leaves(value: &Value, path: String, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                let path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                leaves(field, path, out);
            }
        }
        _ => out.push(path),
    }
}

/// A JSON value of any type, numbers around the ranges configs use.
fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..5).prop_map(Value::from),
        any::<u32>().prop_map(Value::from),
        (-1e3f64..1e3).prop_map(Value::from),
        Just(Value::from(-1)),
        Just(Value::from(1e30)),
        "[a-z]{0,6}".prop_map(Value::from),
        Just(Value::Array(vec![Value::from(16), Value::from(16)])),
    ]
}

/// An override file: a few of the config's real leaf paths (or the same
/// paths with their last key misspelt), each with any value.
fn overrides(paths: Vec<String>) -> impl Strategy<Value = Value> {
    let entry = (proptest::sample::select(paths), any::<bool>(), any_value());
    proptest::collection::vec(entry, 1..4).prop_map(|entries| {
        let mut root = Value::Object(Map::new());
        for (path, misspelt, value) in entries {
            let mut keys: Vec<String> = path.split('.').map(str::to_string).collect();
            if misspelt {
                keys.last_mut().unwrap().push('s');
            }
            let mut node = &mut root;
            for key in &keys[..keys.len() - 1] {
                let fields = node.as_object_mut().unwrap();
                let next = fields.entry(key.clone()).or_insert_with(|| Value::Object(Map::new()));
                if !next.is_object() {
                    *next = Value::Object(Map::new());
                }
                node = next;
            }
            node.as_object_mut().unwrap().insert(keys.last().unwrap().clone(), value);
        }
        root
    })
}

/// Whether `got` holds every leaf of `given` (numbers within f32 rounding).
fn holds(given: &Value, got: &Value) -> bool {
    match (given, got) {
        (Value::Object(a), Value::Object(b)) => a.iter().all(|(k, v)| b.get(k).is_some_and(|w| holds(v, w))),
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            a == b || (a - b).abs() <= 1e-6 * a.abs().max(b.abs())
        }
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| holds(x, y)),
        _ => given == got,
    }
}

fn check<T: serde::Serialize + serde::de::DeserializeOwned>(defaults: T, file: &Value) -> Result<(), TestCaseError> {
    let path = std::env::temp_dir().join(format!(
        "minnow-config-prop-{}-{:?}.json",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, file.to_string()).unwrap();
    let result = layered(defaults, Some(&path));
    let _ = std::fs::remove_file(&path);
    if let Ok(config) = result {
        let got = serde_json::to_value(&config).unwrap();
        prop_assert!(holds(file, &got), "accepted {file} but read it as {got}");
    }
    Ok(())
}

fn paths_of<T: serde::Serialize>(defaults: &T) -> Vec<String> {
    let mut paths = Vec::new();
    leaves(&serde_json::to_value(defaults).unwrap(), String::new(), &mut paths);
    paths
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_digits_config_file_is_read_whole_or_refused(file in overrides(paths_of(&DigitsConfig::default()))) {
        check(DigitsConfig::default(), &file)?;
        if let Ok(config) = serde_json::from_value::<DigitsConfig>(file.clone()) {
            let _ = config.validate();
        }
    }

    #[test]
    fn a_nested_alphazero_config_file_is_read_whole_or_refused(file in overrides(paths_of(&minnow_tasks::alphazero_presets::connect4()))) {
        check(minnow_tasks::alphazero_presets::connect4(), &file)?;
    }
}
