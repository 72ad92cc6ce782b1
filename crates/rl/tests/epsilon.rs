use minnow_rl::EpsilonSchedule;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn linear_decays_then_holds() {
    let s = EpsilonSchedule::Linear { start: 1.0, end: 0.1, steps: 1000 };
    s.validate().unwrap();
    for (step, eps) in [(0, 1.0), (100, 0.91), (500, 0.55), (999, 0.1009), (1000, 0.1), (1_000_000, 0.1)] {
        assert!(close(s.value_at(step), eps), "step {step}: {}", s.value_at(step));
    }
}

#[test]
fn exponential_decays_to_its_floor() {
    let s = EpsilonSchedule::Exponential { start: 1.0, floor: 0.05, decay: 0.99 };
    s.validate().unwrap();
    assert_eq!(s.value_at(0), 1.0);
    assert!(close(s.value_at(1), 0.99));
    assert!(close(s.value_at(100), 0.99f32.powi(100)));
    // 0.99^299 = 0.0495 < 0.05: the floor holds from step 299 on.
    assert!(s.value_at(298) > 0.05);
    assert_eq!(s.value_at(299), 0.05);
    assert_eq!(s.value_at(u64::MAX), 0.05);
}

#[test]
fn constant_is_constant() {
    let s = EpsilonSchedule::Constant { value: 0.05 };
    assert_eq!((s.value_at(0), s.value_at(1 << 40)), (0.05, 0.05));
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        (EpsilonSchedule::Constant { value: 1.5 }, "EpsilonSchedule.value: expected a value in [0, 1], found 1.5"),
        (
            EpsilonSchedule::Linear { start: 1.0, end: 0.1, steps: 0 },
            "EpsilonSchedule.steps: expected a value > 0, found 0",
        ),
        (
            EpsilonSchedule::Linear { start: 1.0, end: -0.1, steps: 10 },
            "EpsilonSchedule.end: expected a value in [0, 1], found -0.1",
        ),
        (
            EpsilonSchedule::Exponential { start: 1.0, floor: 0.1, decay: 0.0 },
            "EpsilonSchedule.decay: expected a value in (0, 1], found 0",
        ),
        (
            EpsilonSchedule::Exponential { start: f32::NAN, floor: 0.1, decay: 0.5 },
            "EpsilonSchedule.start: expected a value in [0, 1], found NaN",
        ),
    ];
    for (s, message) in cases {
        assert_eq!(s.validate().unwrap_err().to_string(), message);
    }
}

#[test]
fn reads_from_a_config_file() {
    let s: EpsilonSchedule =
        serde_json::from_str(r#"{"kind": "linear", "start": 1.0, "end": 0.05, "steps": 50000}"#).unwrap();
    assert_eq!(s, EpsilonSchedule::Linear { start: 1.0, end: 0.05, steps: 50_000 });
}
