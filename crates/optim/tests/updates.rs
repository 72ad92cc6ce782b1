//! Every optimiser against PyTorch's update rules, written out again here
//! in f64 from the `torch.optim` documentation, over several steps of a
//! tiny parameter store; plus a few updates small enough to do by hand.

mod common;

use common::{assert_matches, grad, live, live_values, set_grads, tiny};
use minnow_autodiff::Params;
use minnow_optim::{AdaGradConfig, AdamConfig, AdamWConfig, Optimizer, RmsPropConfig, SgdConfig};

const STEPS: usize = 4;
const RTOL: f64 = 2e-6;

/// Runs `STEPS` steps of `opt` on the tiny store with the fixed gradients.
fn run(opt: &mut dyn Optimizer, params: &mut Params) {
    for t in 0..STEPS {
        set_grads(params, t);
        opt.step(params).unwrap();
    }
    assert_eq!(opt.step_count(), STEPS as u64);
}

/// The fixed gradients at step `t` for the live elements, as f64.
fn grads_at(params: &Params, t: usize) -> Vec<f64> {
    live(params).into_iter().map(|i| grad(t, i) as f64).collect()
}

// --- The references: one function per optimiser, straight from the formulas.

fn sgd_reference(params: &Params, c: SgdConfig) -> Vec<f64> {
    let (lr, mu, damp, wd) = (c.lr as f64, c.momentum as f64, c.dampening as f64, c.weight_decay as f64);
    let mut p = live_values(params);
    let mut buf: Option<Vec<f64>> = None;
    for t in 0..STEPS {
        let g = grads_at(params, t);
        let mut d: Vec<f64> = (0..p.len()).map(|i| g[i] + wd * p[i]).collect();
        if mu != 0.0 {
            let b = match buf.take() {
                None => d.clone(),
                Some(b) => (0..p.len()).map(|i| mu * b[i] + (1.0 - damp) * d[i]).collect(),
            };
            d = if c.nesterov { (0..p.len()).map(|i| d[i] + mu * b[i]).collect() } else { b.clone() };
            buf = Some(b);
        }
        for i in 0..p.len() {
            p[i] -= lr * d[i];
        }
    }
    p
}

fn adam_reference(params: &Params, c: AdamConfig, decoupled: bool) -> Vec<f64> {
    let (lr, b1, b2, eps, wd) = (c.lr as f64, c.betas.0 as f64, c.betas.1 as f64, c.eps as f64, c.weight_decay as f64);
    let mut p = live_values(params);
    let (mut m, mut v) = (vec![0.0; p.len()], vec![0.0; p.len()]);
    for t in 0..STEPS {
        let step = (t + 1) as i32;
        let g = grads_at(params, t);
        for i in 0..p.len() {
            let mut gi = g[i];
            if decoupled {
                p[i] *= 1.0 - lr * wd;
            } else {
                gi += wd * p[i];
            }
            m[i] = b1 * m[i] + (1.0 - b1) * gi;
            v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
            let m_hat = m[i] / (1.0 - b1.powi(step));
            let v_hat = v[i] / (1.0 - b2.powi(step));
            p[i] -= lr * m_hat / (v_hat.sqrt() + eps);
        }
    }
    p
}

fn rmsprop_reference(params: &Params, c: RmsPropConfig) -> Vec<f64> {
    let (lr, alpha, eps, wd, mu) =
        (c.lr as f64, c.alpha as f64, c.eps as f64, c.weight_decay as f64, c.momentum as f64);
    let mut p = live_values(params);
    let n = p.len();
    let (mut sq, mut avg, mut buf) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for t in 0..STEPS {
        let g = grads_at(params, t);
        for i in 0..n {
            let gi = g[i] + wd * p[i];
            sq[i] = alpha * sq[i] + (1.0 - alpha) * gi * gi;
            let denom = if c.centered {
                avg[i] = alpha * avg[i] + (1.0 - alpha) * gi;
                (sq[i] - avg[i] * avg[i]).sqrt() + eps
            } else {
                sq[i].sqrt() + eps
            };
            if mu > 0.0 {
                buf[i] = mu * buf[i] + gi / denom;
                p[i] -= lr * buf[i];
            } else {
                p[i] -= lr * gi / denom;
            }
        }
    }
    p
}

fn adagrad_reference(params: &Params, c: AdaGradConfig) -> Vec<f64> {
    let (lr, decay, wd, eps) = (c.lr as f64, c.lr_decay as f64, c.weight_decay as f64, c.eps as f64);
    let mut p = live_values(params);
    let mut sum = vec![c.initial_accumulator_value as f64; p.len()];
    for t in 0..STEPS {
        let g = grads_at(params, t);
        let clr = lr / (1.0 + t as f64 * decay);
        for i in 0..p.len() {
            let gi = g[i] + wd * p[i];
            sum[i] += gi * gi;
            p[i] -= clr * gi / (sum[i].sqrt() + eps);
        }
    }
    p
}

// --- The tests.

#[test]
fn sgd_variants_match_pytorch() {
    let configs = [
        ("plain", SgdConfig { lr: 0.1, ..SgdConfig::default() }),
        ("weight decay", SgdConfig { lr: 0.1, weight_decay: 0.1, ..SgdConfig::default() }),
        // Dampening shows whether the first step copies the gradient
        // (PyTorch) or damps it too.
        ("momentum + dampening", SgdConfig { lr: 0.1, momentum: 0.9, dampening: 0.3, ..SgdConfig::default() }),
        (
            "nesterov + weight decay",
            SgdConfig { lr: 0.05, momentum: 0.8, weight_decay: 0.01, nesterov: true, ..SgdConfig::default() },
        ),
    ];
    for (what, config) in configs {
        let mut params = tiny();
        let want = sgd_reference(&params, config);
        let mut opt = config.build(&params).unwrap();
        run(&mut opt, &mut params);
        assert_matches(what, &params, &want, RTOL);
    }
}

#[test]
fn sgd_first_step_copies_the_gradient_into_the_buffer() {
    let mut params = tiny();
    let config = SgdConfig { lr: 0.1, momentum: 0.9, dampening: 0.5, ..SgdConfig::default() };
    let mut opt = config.build(&params).unwrap();
    set_grads(&mut params, 0);
    opt.step(&mut params).unwrap();
    let (_, buf) = &opt.state()[0];
    for i in live(&params) {
        assert_eq!(buf[i], grad(0, i), "element {i}");
    }
}

#[test]
fn sgd_momentum_by_hand() {
    // g = 1 every step, lr 0.1, momentum 0.9: b = 1, 1.9, 2.71 and
    // p = 1 - 0.1 b cumulatively: 0.9, 0.71, 0.439.
    let mut params = Params::new();
    params.add("x", &[1], |v| v[0] = 1.0).unwrap();
    let mut opt = SgdConfig { lr: 0.1, momentum: 0.9, ..SgdConfig::default() }.build(&params).unwrap();
    for want in [0.9, 0.71, 0.439] {
        params.grads_mut()[0] = 1.0;
        opt.step(&mut params).unwrap();
        assert!((params.values()[0] - want).abs() < 1e-6, "got {}, want {want}", params.values()[0]);
    }
    // Nesterov looks ahead: each step moves by lr (g + 0.9 b), that is
    // 0.19, 0.271, 0.3439, so p = 0.81, 0.539, 0.1951.
    let mut params = Params::new();
    params.add("x", &[1], |v| v[0] = 1.0).unwrap();
    let mut opt = SgdConfig { lr: 0.1, momentum: 0.9, nesterov: true, ..SgdConfig::default() }.build(&params).unwrap();
    for want in [0.81, 0.539, 0.1951] {
        params.grads_mut()[0] = 1.0;
        opt.step(&mut params).unwrap();
        assert!((params.values()[0] - want).abs() < 1e-6, "got {}, want {want}", params.values()[0]);
    }
}

#[test]
fn adam_and_adamw_match_pytorch() {
    for config in [AdamConfig::default(), AdamConfig { lr: 0.05, betas: (0.8, 0.95), eps: 1e-6, weight_decay: 0.1 }] {
        let mut params = tiny();
        let want = adam_reference(&params, config, false);
        let mut opt = config.build(&params).unwrap();
        run(&mut opt, &mut params);
        assert_matches(&format!("Adam {config:?}"), &params, &want, RTOL);
    }
    for config in [AdamWConfig::default(), AdamWConfig { lr: 0.05, betas: (0.8, 0.95), eps: 1e-6, weight_decay: 0.1 }] {
        let mut params = tiny();
        let AdamWConfig { lr, betas, eps, weight_decay } = config;
        let want = adam_reference(&params, AdamConfig { lr, betas, eps, weight_decay }, true);
        let mut opt = config.build(&params).unwrap();
        run(&mut opt, &mut params);
        assert_matches(&format!("AdamW {config:?}"), &params, &want, RTOL);
    }
}

#[test]
fn adam_couples_weight_decay_and_adamw_does_not() {
    let (lr, betas, eps, weight_decay) = (0.05, (0.9, 0.999), 1e-8, 0.5);
    let mut coupled = tiny();
    let mut adam = AdamConfig { lr, betas, eps, weight_decay }.build(&coupled).unwrap();
    run(&mut adam, &mut coupled);
    let mut decoupled = tiny();
    let mut adamw = AdamWConfig { lr, betas, eps, weight_decay }.build(&decoupled).unwrap();
    run(&mut adamw, &mut decoupled);
    let apart =
        live(&coupled).into_iter().map(|i| (coupled.values()[i] - decoupled.values()[i]).abs()).fold(0.0f32, f32::max);
    assert!(apart > 1e-3, "Adam and AdamW ended {apart} apart");
}

#[test]
fn adam_by_hand() {
    // With a constant gradient the bias-corrected moments are g and g², so
    // every step moves lr * g / (|g| + eps) = lr * sign(g) (to 1e-8).
    let mut params = Params::new();
    params.add("x", &[2], |v| v.copy_from_slice(&[1.0, 1.0])).unwrap();
    let mut opt = AdamConfig { lr: 0.1, ..AdamConfig::default() }.build(&params).unwrap();
    for step in 1..=3 {
        params.grads_mut()[..2].copy_from_slice(&[0.5, -3.0]);
        opt.step(&mut params).unwrap();
        let moved = 0.1 * step as f32;
        assert!((params.values()[0] - (1.0 - moved)).abs() < 1e-5, "{:?}", &params.values()[..2]);
        assert!((params.values()[1] - (1.0 + moved)).abs() < 1e-5, "{:?}", &params.values()[..2]);
    }
}

#[test]
fn rmsprop_variants_match_pytorch() {
    let configs = [
        RmsPropConfig::default(),
        RmsPropConfig { momentum: 0.9, ..RmsPropConfig::default() },
        RmsPropConfig { centered: true, ..RmsPropConfig::default() },
        RmsPropConfig {
            lr: 0.03,
            alpha: 0.9,
            weight_decay: 0.1,
            momentum: 0.5,
            centered: true,
            ..RmsPropConfig::default()
        },
    ];
    for config in configs {
        let mut params = tiny();
        let want = rmsprop_reference(&params, config);
        let mut opt = config.build(&params).unwrap();
        run(&mut opt, &mut params);
        assert_matches(&format!("{config:?}"), &params, &want, RTOL);
    }
}

#[test]
fn rmsprop_by_hand() {
    // One step, g = 2, alpha 0.99: s = 0.01 * 4 = 0.04, sqrt = 0.2, so
    // p moves by lr * 2 / 0.2 = 10 lr. Centered: a = 0.02,
    // s - a² = 0.0396, and p moves by lr * 2 / sqrt(0.0396).
    for (centered, moved) in [(false, 10.0 * 0.01), (true, 0.01 * 2.0 / 0.0396f64.sqrt())] {
        let mut params = Params::new();
        params.add("x", &[1], |v| v[0] = 1.0).unwrap();
        let mut opt = RmsPropConfig { centered, ..RmsPropConfig::default() }.build(&params).unwrap();
        params.grads_mut()[0] = 2.0;
        opt.step(&mut params).unwrap();
        let got = params.values()[0] as f64;
        assert!((got - (1.0 - moved)).abs() < 1e-6, "centered {centered}: got {got}");
    }
}

#[test]
fn adagrad_variants_match_pytorch() {
    let configs = [
        AdaGradConfig::default(),
        AdaGradConfig { lr: 0.1, lr_decay: 0.1, weight_decay: 0.05, initial_accumulator_value: 0.1, eps: 1e-10 },
    ];
    for config in configs {
        let mut params = tiny();
        let want = adagrad_reference(&params, config);
        let mut opt = config.build(&params).unwrap();
        run(&mut opt, &mut params);
        assert_matches(&format!("{config:?}"), &params, &want, RTOL);
    }
}

#[test]
fn adagrad_by_hand() {
    // g = 1: the sum is t, and lr_decay 0.5 gives rates 0.1, 0.1/1.5, 0.1/2,
    // so p = 1 - 0.1 (1 + 1/(1.5 sqrt 2) + 1/(2 sqrt 3)).
    let mut params = Params::new();
    params.add("x", &[1], |v| v[0] = 1.0).unwrap();
    let mut opt = AdaGradConfig { lr: 0.1, lr_decay: 0.5, ..AdaGradConfig::default() }.build(&params).unwrap();
    for _ in 0..3 {
        params.grads_mut()[0] = 1.0;
        opt.step(&mut params).unwrap();
    }
    let want = 1.0 - 0.1 * (1.0 + 1.0 / (1.5 * 2f64.sqrt()) + 1.0 / (2.0 * 3f64.sqrt()));
    assert!((params.values()[0] as f64 - want).abs() < 1e-6, "got {}, want {want}", params.values()[0]);
}

#[test]
fn set_lr_changes_the_next_step() {
    let mut params = Params::new();
    params.add("x", &[1], |v| v[0] = 1.0).unwrap();
    let mut opt = SgdConfig { lr: 0.1, ..SgdConfig::default() }.build(&params).unwrap();
    opt.set_lr(0.5);
    assert_eq!(opt.lr(), 0.5);
    assert_eq!(opt.config().lr, 0.5);
    params.grads_mut()[0] = 1.0;
    opt.step(&mut params).unwrap();
    assert_eq!(params.values()[0], 0.5);
}

#[test]
#[should_panic(expected = "set_lr: expected a finite rate >= 0, found NaN")]
fn set_lr_refuses_nan() {
    let params = tiny();
    AdamConfig::default().build(&params).unwrap().set_lr(f32::NAN);
}
