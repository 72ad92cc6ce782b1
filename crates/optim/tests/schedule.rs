//! Learning-rate schedules at chosen steps, against PyTorch's closed forms.

mod common;

use minnow_optim::{Decay, Optimizer, ScheduleConfig, SgdConfig};

#[track_caller]
fn close(got: f32, want: f64) {
    assert!((got as f64 - want).abs() <= 1e-7 + 1e-6 * want.abs(), "got {got}, want {want}");
}

#[test]
fn constant_stays_put() {
    let s = ScheduleConfig::constant(0.01).build().unwrap();
    for step in [0, 1, 1000, u64::MAX] {
        assert_eq!(s.value_at(step), 0.01);
    }
}

#[test]
fn step_decay_drops_every_step_size() {
    // StepLR(step_size=30, gamma=0.1) from 0.1.
    let s = ScheduleConfig::step_decay(0.1, 30, 0.1).build().unwrap();
    for (step, want) in [(0, 0.1), (29, 0.1), (30, 0.01), (59, 0.01), (60, 0.001), (95, 1e-4)] {
        close(s.value_at(step), want);
    }
}

#[test]
fn cosine_follows_pytorch_closed_form() {
    // CosineAnnealingLR(T_max=10, eta_min=0.001) from 0.1.
    let s = ScheduleConfig::cosine(0.1, 10, 0.001).build().unwrap();
    let pi = std::f64::consts::PI;
    close(s.value_at(0), 0.1);
    close(s.value_at(5), 0.001 + 0.099 / 2.0);
    close(s.value_at(3), 0.001 + 0.099 * (1.0 + (0.3 * pi).cos()) / 2.0);
    close(s.value_at(10), 0.001);
    // Past t_max the cosine climbs back, as PyTorch's does.
    close(s.value_at(15), 0.001 + 0.099 / 2.0);
    close(s.value_at(20), 0.1);
}

#[test]
fn warmup_then_decay() {
    // LinearLR(start_factor=0.25, total_iters=4) then cosine over 8 steps.
    let s = ScheduleConfig::cosine(0.2, 8, 0.0).with_warmup(4, 0.25).build().unwrap();
    close(s.value_at(0), 0.05);
    close(s.value_at(1), 0.2 * (0.25 + 0.75 / 4.0));
    close(s.value_at(3), 0.2 * (0.25 + 0.75 * 3.0 / 4.0));
    close(s.value_at(4), 0.2);
    close(s.value_at(8), 0.1);
    close(s.value_at(12), 0.0);
    let s = ScheduleConfig::step_decay(1.0, 2, 0.5).with_warmup(2, 0.5).build().unwrap();
    let got: Vec<f32> = (0..8).map(|t| s.value_at(t)).collect();
    assert_eq!(got, [0.5, 0.75, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25]);
}

#[test]
fn linear_runs_straight_to_its_end_and_stays() {
    let s = ScheduleConfig::linear(1.0, 10, 0.1).build().unwrap();
    close(s.value_at(0), 1.0);
    close(s.value_at(5), 0.55);
    close(s.value_at(9), 0.19);
    for step in [10, 11, u64::MAX] {
        assert_eq!(s.value_at(step), 0.1, "exactly the end value from step 10");
    }
    // Rising (an importance-sampling exponent going to 1), and at once.
    let rising = ScheduleConfig::linear(0.4, 4, 1.0).build().unwrap();
    close(rising.value_at(2), 0.7);
    assert_eq!(rising.value_at(4), 1.0);
    assert_eq!(ScheduleConfig::linear(0.4, 0, 1.0).build().unwrap().value_at(0), 1.0);
}

/// The closed forms the DQN loop computed by hand before it used
/// schedules, bit for bit: a linear anneal clamped at its end, and an
/// exponential decay with a floor taken in log space.
#[test]
fn linear_and_exponential_match_the_hand_written_forms_bit_for_bit() {
    for (start, end, steps) in [(5e-4f32, 5e-5f32, 8_000_000u64), (2.5e-4, 2.5e-5, 4_000_000), (1.0, 0.01, 10_000)] {
        let s = ScheduleConfig::linear(start, steps, end).build().unwrap();
        for step in (0..2 * steps).step_by((steps / 997) as usize).chain([steps - 1, steps, steps + 1]) {
            let progress = (step as f64 / steps as f64).clamp(0.0, 1.0);
            let by_hand = (start as f64 + (end as f64 - start as f64) * progress) as f32;
            assert_eq!(s.value_at(step).to_bits(), by_hand.to_bits(), "{start} -> {end} over {steps}, step {step}");
        }
    }
    let (start, floor, decay) = (1.0f32, 0.05f32, 0.99f32);
    let s = ScheduleConfig::exponential(start, decay, floor).build().unwrap();
    for step in (0..400).chain([1 << 40, u64::MAX]) {
        let by_hand = (start as f64 * (step as f64 * (decay as f64).ln()).exp()).max(floor as f64) as f32;
        assert_eq!(s.value_at(step).to_bits(), by_hand.to_bits(), "step {step}");
    }
}

/// The self-play trainer's cosine decay held at its end, as it computed it
/// by hand before it used a schedule, bit for bit.
#[test]
fn cosine_hold_matches_the_hand_written_form_bit_for_bit() {
    let (lr, lr_final, updates) = (2e-3f32, 1e-4f32, 80_000u64);
    let s = ScheduleConfig { base: lr, warmup: None, decay: Decay::CosineHold { t_max: updates, eta_min: lr_final } }
        .build()
        .unwrap();
    for step in (0..100_000).step_by(97).chain([updates - 1, updates, updates + 1, u64::MAX]) {
        let t = step.min(updates) as f64 / updates as f64;
        let by_hand =
            (lr_final as f64 + (lr - lr_final) as f64 * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())) as f32;
        assert_eq!(s.value_at(step).to_bits(), by_hand.to_bits(), "step {step}");
    }
    close(s.value_at(updates / 2), (lr as f64 + lr_final as f64) / 2.0);
    assert_eq!(s.value_at(updates), lr_final);
    assert_eq!(s.value_at(10 * updates), lr_final, "held, not climbing back");
}

#[test]
fn exponential_decays_to_its_floor() {
    let s = ScheduleConfig::exponential(1.0, 0.99, 0.05).build().unwrap();
    assert_eq!(s.value_at(0), 1.0);
    close(s.value_at(1), 0.99);
    close(s.value_at(100), 0.99f64.powi(100));
    assert!(s.value_at(298) > 0.05);
    assert_eq!(s.value_at(299), 0.05);
    assert_eq!(s.value_at(u64::MAX), 0.05);
}

#[test]
fn apply_sets_the_rate_for_the_next_step() {
    let params = common::tiny();
    let mut opt = SgdConfig::default().build(&params).unwrap();
    let s = ScheduleConfig::step_decay(0.1, 3, 0.5).build().unwrap();
    opt.set_step_count(3);
    assert_eq!(s.apply(&mut opt), 0.05);
    assert_eq!(opt.lr(), 0.05);
    let dynamic: &mut dyn Optimizer = &mut opt;
    dynamic.set_step_count(0);
    assert_eq!(s.apply(dynamic), 0.1);
}
