//! Config files from a hostile user, for every shipped task: any mix of
//! real keys at any depth, misspelt keys and values of any type. Reading
//! one is an error or a config that holds every value the file gave
//! (nothing silently dropped or defaulted), never a panic.

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

/// `file` laid over task `name`'s preset: refused, or a config holding
/// every value the file gave.
fn check(name: &str, file: &Value) -> Result<(), TestCaseError> {
    let registry = minnow_tasks::registry();
    let task = registry.get(name).expect("a shipped task");
    if let Ok(config) = task.configure(file, None, None) {
        let json = config.json();
        prop_assert!(holds(file, &json), "{name}: accepted {file} but read it as {json}");
    }
    Ok(())
}

/// The leaf paths of task `name`'s preset.
fn paths_of(name: &str) -> Vec<String> {
    let registry = minnow_tasks::registry();
    let defaults = registry.get(name).expect("a shipped task").configure(&Value::Object(Map::new()), None, None);
    let mut paths = Vec::new();
    leaves(&defaults.expect("every preset is valid").json(), String::new(), &mut paths);
    paths
}

/// Every shipped task's preset is a valid config.
#[test]
fn every_preset_is_valid() {
    for task in minnow_tasks::registry().iter() {
        let configured = task.configure(&Value::Object(Map::new()), None, None);
        assert!(configured.is_ok(), "{}: {:?}", task.name(), configured.err());
    }
}

/// A misspelt key deep in a config is named by its path in the file.
#[test]
fn an_unknown_key_is_named_by_its_path() {
    let registry = minnow_tasks::registry();
    let file = serde_json::json!({"ca": {"heigth": 3}});
    let e = registry.get("logic-ca").unwrap().configure(&file, None, None).unwrap_err().to_string();
    assert!(e.starts_with("unknown field `ca.heigth`"), "{e}");
}

/// A value error deep in a config is named by its path too.
#[test]
fn a_bad_value_is_named_by_its_path() {
    let registry = minnow_tasks::registry();
    let file = serde_json::json!({"mcts": {"inference": "bf17"}});
    let e = registry.get("az-connect4").unwrap().configure(&file, None, None).unwrap_err().to_string();
    assert!(e.starts_with(r#"mcts.inference: expected "f32" or "bf16", found "bf17""#), "{e}");
}

/// Every shipped task, 64 files each.
#[test]
fn every_task_reads_a_config_file_whole_or_refuses_it() {
    for task in minnow_tasks::registry().iter() {
        let name = task.name();
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(64));
        if let Err(e) = runner.run(&overrides(paths_of(name)), |file| check(name, &file)) {
            panic!("{name}: {e}");
        }
    }
}
