//! One-call inference (`Predict`) against the graph forward it replaces.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_nn::{Activation, Conv2dConfig, Forward, LinearConfig, MlpConfig, Params, Predict, Sequential, Tape};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

use minnow_nn::testing::{bits, inputs, rng};

/// The graph forward, built by hand on an inference graph.
fn by_hand(model: &impl Forward<Output = minnow_nn::Var>, params: &Params, dims: &[usize], x: &[f32]) -> Vec<f32> {
    let mut tape = Tape::new();
    let mut g = tape.inference(params);
    let input = g.input(dims, x).unwrap();
    let y = model.forward(&mut g, input).unwrap();
    g.value(y).to_vec()
}

#[test]
fn predict_is_the_graph_forward_bit_for_bit() {
    let mut params = Params::new();
    let config = MlpConfig { layer_norm: true, ..MlpConfig::new(&[5, 16, 16, 3]) };
    let mlp = config.init(&mut params, "mlp", &mut rng(1)).unwrap();
    let x = inputs(7 * 5, 1);
    let want = by_hand(&mlp, &params, &[7, 5], &x);
    assert_eq!(bits(&mlp.predict(&params, &[7, 5], &x).unwrap()), bits(&want));
    let (mut tape, mut out) = (Tape::new(), vec![f32::NAN; 7 * 3]);
    let shape = mlp.predict_into(&mut tape, &params, &[7, 5], &x, &mut out).unwrap();
    assert_eq!(shape.dims(), &[7, 3]);
    assert_eq!(bits(&out), bits(&want));

    // A Sequential of a convolution, an activation and a Linear.
    let conv =
        Conv2dConfig { padding: 1, ..Conv2dConfig::new(2, 3, 3) }.init(&mut params, "conv", &mut rng(2)).unwrap();
    let fc = LinearConfig::new(3 * 4 * 4, 2).init(&mut params, "fc", &mut rng(3)).unwrap();
    let seq = Sequential::new().push(conv).push(Activation::Tanh).push(Flatten).push(fc);
    let x = inputs(3 * 2 * 4 * 4, 2);
    let want = by_hand(&seq, &params, &[3, 2, 4, 4], &x);
    assert_eq!(bits(&seq.predict(&params, &[3, 2, 4, 4], &x).unwrap()), bits(&want));
}

/// [N, ...] -> [N, rest], for the Sequential above.
#[derive(Debug)]
struct Flatten;

impl minnow_nn::Module for Flatten {
    fn visit(&self, _f: &mut dyn FnMut(minnow_nn::ParamId)) {}
}

impl Forward for Flatten {
    type Output = minnow_nn::Var;

    fn forward(&self, g: &mut minnow_nn::Graph<'_>, x: minnow_nn::Var) -> minnow_autodiff::Result<minnow_nn::Var> {
        let dims = g.shape(x);
        let n = dims.dims()[0];
        g.reshape(x, &[n, dims.numel() / n])
    }
}

#[test]
fn predict_into_refuses_wrong_lengths_and_allocates_nothing_once_warm() {
    let mut params = Params::new();
    let mlp = MlpConfig::new(&[4, 8, 2]).init(&mut params, "mlp", &mut rng(4)).unwrap();
    let x = inputs(3 * 4, 3);
    let mut tape = Tape::new();
    let mut out = vec![0.5; 5];
    let err = mlp.predict_into(&mut tape, &params, &[3, 4], &x, &mut out).unwrap_err();
    assert!(err.to_string().contains("predict_into (out): 5 values cannot fill shape [3, 2]"), "{err}");
    assert_eq!(out, vec![0.5; 5], "out was written on an error");
    let err = mlp.predict(&params, &[3, 5], &x).unwrap_err();
    assert!(err.to_string().contains("12 values cannot fill shape [3, 5]"), "{err}");

    let mut out = vec![0.0; 3 * 2];
    mlp.predict_into(&mut tape, &params, &[3, 4], &x, &mut out).unwrap();
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..10 {
            mlp.predict_into(&mut tape, &params, &[3, 4], &x, &mut out).unwrap();
        }
    });
    assert_eq!(on_thread.allocations, 0, "{on_thread:?}");
}
