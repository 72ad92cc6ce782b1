//! An LSTM layer and Conv2d against PyTorch: outputs, losses and every
//! gradient, from the fixtures `goldens/make_goldens.py` wrote (torch
//! 2.15.0, CPU, float32; `goldens/README.md`).
//!
//! Tolerance: every element within 1e-5 of the tensor's largest
//! magnitude (`TOLERANCE`). Both sides compute in f32 but sum in other
//! orders (GEMM blocking, the convolution's reductions) and evaluate
//! sigmoid and tanh with their own kernels, so bitwise equality is not
//! expected. The largest differences measured are 2.7e-7 of the scale
//! (a Conv2d kernel gradient; outputs at most 2.3e-7), so the bound
//! leaves a margin of over 30 while a wrong index, gate order or missing
//! term moves values by percents.

use minnow_nn::{Checkpoint, Conv2dConfig, Forward, LstmConfig, Params, Tape};
use rand::SeedableRng;

/// Allowed difference, relative to the largest magnitude of a tensor.
const TOLERANCE: f32 = 1e-5;

fn fixture(name: &str) -> Checkpoint {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../goldens").join(name);
    Checkpoint::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tensor<'a>(fixture: &'a Checkpoint, name: &str) -> &'a [f32] {
    fixture.tensor(name).unwrap_or_else(|| panic!("fixture has no tensor '{name}'"))
}

#[track_caller]
fn assert_close(what: &str, ours: &[f32], torch: &[f32]) {
    assert_eq!(ours.len(), torch.len(), "{what}: length");
    let bound = TOLERANCE * torch.iter().fold(0.0f32, |m, b| m.max(b.abs()));
    for (i, (a, b)) in ours.iter().zip(torch).enumerate() {
        assert!((a - b).abs() <= bound, "{what}[{i}]: minnow {a}, torch {b} (allowed difference {bound:e})");
    }
}

/// Every parameter's gradient against `grad.<name>` of the fixture.
fn assert_grads(fixture: &Checkpoint, params: &Params) {
    for id in params.ids() {
        let name = format!("grad.{}", params.name(id));
        assert_close(&name, params.grad(id), tensor(fixture, &name));
    }
}

#[test]
fn lstm_matches_pytorch() {
    let f = fixture("lstm.safetensors");
    let mut params = Params::new();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    let lstm = LstmConfig::new(4, 6).init(&mut params, "lstm", &mut rng).unwrap();
    f.restore_prefixed("init", &mut params).unwrap();
    let mut tape = Tape::new();
    params.zero_grads();
    let mut g = tape.graph(&mut params);
    let x = g.input(&[3, 5, 4], tensor(&f, "x")).unwrap();
    let out = lstm.forward_sequence(&mut g, x).unwrap();
    assert_eq!(g.shape(out).dims(), &[3, 5, 6]);
    assert_close("out", g.value(out), tensor(&f, "out"));
    let loss = g.mse(out, tensor(&f, "target"), None).unwrap();
    assert_close("loss", &[g.scalar(loss)], tensor(&f, "loss"));
    g.backward(loss).unwrap();
    assert_grads(&f, &params);
}

#[test]
fn conv2d_matches_pytorch_with_and_without_stride_and_padding() {
    let f = fixture("conv2d.safetensors");
    for (case, stride, padding, out_side) in [("plain", 1, 0, 5), ("strided", 2, 1, 4)] {
        let mut params = Params::new();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
        let conv =
            Conv2dConfig { stride, padding, ..Conv2dConfig::new(3, 4, 3) }.init(&mut params, "conv", &mut rng).unwrap();
        f.restore_prefixed(&format!("{case}.init"), &mut params).unwrap();
        // The input as a parameter, so its gradient lands in the store too.
        let x = params.add("x", &[2, 3, 7, 7], |v| v.copy_from_slice(tensor(&f, &format!("{case}.x")))).unwrap();
        let mut tape = Tape::new();
        params.zero_grads();
        let mut g = tape.graph(&mut params);
        let input = g.param(x);
        let out = conv.forward(&mut g, input).unwrap();
        assert_eq!(g.shape(out).dims(), &[2, 4, out_side, out_side], "{case}");
        assert_close(&format!("{case}.out"), g.value(out), tensor(&f, &format!("{case}.out")));
        let loss = g.mse(out, tensor(&f, &format!("{case}.target")), None).unwrap();
        assert_close(&format!("{case}.loss"), &[g.scalar(loss)], tensor(&f, &format!("{case}.loss")));
        g.backward(loss).unwrap();
        assert_close(&format!("{case}.grad_x"), params.grad(x), tensor(&f, &format!("{case}.grad_x")));
        let conv_ids = [conv.w, conv.b.expect("bias on")];
        for id in conv_ids {
            let name = format!("{case}.grad.{}", params.name(id));
            assert_close(&name, params.grad(id), tensor(&f, &name));
        }
    }
}
