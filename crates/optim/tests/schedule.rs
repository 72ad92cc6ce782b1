//! Learning-rate schedules at chosen steps, against PyTorch's closed forms.

mod common;

use minnow_optim::{Optimizer, ScheduleConfig, SgdConfig};

#[track_caller]
fn close(got: f32, want: f64) {
    assert!((got as f64 - want).abs() <= 1e-7 + 1e-6 * want.abs(), "got {got}, want {want}");
}

#[test]
fn constant_stays_put() {
    let s = ScheduleConfig::constant(0.01).build().unwrap();
    for step in [0, 1, 1000, u64::MAX] {
        assert_eq!(s.lr_at(step), 0.01);
    }
}

#[test]
fn step_decay_drops_every_step_size() {
    // StepLR(step_size=30, gamma=0.1) from 0.1.
    let s = ScheduleConfig::step_decay(0.1, 30, 0.1).build().unwrap();
    for (step, want) in [(0, 0.1), (29, 0.1), (30, 0.01), (59, 0.01), (60, 0.001), (95, 1e-4)] {
        close(s.lr_at(step), want);
    }
}

#[test]
fn cosine_follows_pytorch_closed_form() {
    // CosineAnnealingLR(T_max=10, eta_min=0.001) from 0.1.
    let s = ScheduleConfig::cosine(0.1, 10, 0.001).build().unwrap();
    let pi = std::f64::consts::PI;
    close(s.lr_at(0), 0.1);
    close(s.lr_at(5), 0.001 + 0.099 / 2.0);
    close(s.lr_at(3), 0.001 + 0.099 * (1.0 + (0.3 * pi).cos()) / 2.0);
    close(s.lr_at(10), 0.001);
    // Past t_max the cosine climbs back, as PyTorch's does.
    close(s.lr_at(15), 0.001 + 0.099 / 2.0);
    close(s.lr_at(20), 0.1);
}

#[test]
fn warmup_then_decay() {
    // LinearLR(start_factor=0.25, total_iters=4) then cosine over 8 steps.
    let s = ScheduleConfig::cosine(0.2, 8, 0.0).with_warmup(4, 0.25).build().unwrap();
    close(s.lr_at(0), 0.05);
    close(s.lr_at(1), 0.2 * (0.25 + 0.75 / 4.0));
    close(s.lr_at(3), 0.2 * (0.25 + 0.75 * 3.0 / 4.0));
    close(s.lr_at(4), 0.2);
    close(s.lr_at(8), 0.1);
    close(s.lr_at(12), 0.0);
    let s = ScheduleConfig::step_decay(1.0, 2, 0.5).with_warmup(2, 0.5).build().unwrap();
    let got: Vec<f32> = (0..8).map(|t| s.lr_at(t)).collect();
    assert_eq!(got, [0.5, 0.75, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25]);
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
