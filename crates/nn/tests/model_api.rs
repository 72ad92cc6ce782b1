//! The model API: `Forward` over every layer, `Sequential` (boxed and
//! enum layers) allocating nothing per step, MLP trunks with a head of the
//! caller's, borrowed graph inputs and regression datasets.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_nn::{
    Activation, Batches, DuelingHeadConfig, Forward, LayerNormConfig, Linear, LinearConfig, MlpConfig, Module, NnError,
    Params, RegressionDataset, Sequential, Tape,
};
use rand::SeedableRng;
use std::io::Cursor;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn rng() -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(11)
}

#[test]
fn sequential_matches_the_layers_run_by_hand() {
    let mut params = Params::new();
    let mut r = rng();
    let fc1 = LinearConfig::new(3, 5).init(&mut params, "0", &mut r).unwrap();
    let norm = LayerNormConfig::new(5).init(&mut params, "1").unwrap();
    let fc2 = LinearConfig::new(5, 2).init(&mut params, "3", &mut r).unwrap();
    let model = Sequential::new().push(fc1).push(norm).push(Activation::Tanh).push(fc2);
    assert_eq!((model.len(), model.param_ids().len()), (4, 6));
    let x_data = [0.5, -1.0, 2.0, 0.1, 0.2, -0.3];
    let mut tape = Tape::new();
    let by_hand = {
        let mut g = tape.inference(&params);
        let x = g.input(&[2, 3], &x_data).unwrap();
        let h = fc1.forward(&mut g, x).unwrap();
        let h = norm.forward(&mut g, h).unwrap();
        let h = g.tanh(h).unwrap();
        let y = fc2.forward(&mut g, h).unwrap();
        g.value(y).to_vec()
    };
    let mut g = tape.inference(&params);
    let x = g.input(&[2, 3], &x_data).unwrap();
    let y = model.forward(&mut g, x).unwrap();
    assert_eq!(g.value(y), by_hand.as_slice());
}

/// A user's own closed set of layers: no boxes at all.
#[derive(Debug)]
enum Layer {
    Linear(Linear),
    Act(Activation),
}

impl Module for Layer {
    fn visit(&self, f: &mut dyn FnMut(minnow_nn::ParamId)) {
        if let Layer::Linear(l) = self {
            l.visit(f)
        }
    }
}

impl Forward for Layer {
    type Output = minnow_nn::Var;

    fn forward(&self, g: &mut minnow_nn::Graph<'_>, x: minnow_nn::Var) -> minnow_autodiff::Result<minnow_nn::Var> {
        match self {
            Layer::Linear(l) => l.forward(g, x),
            Layer::Act(a) => a.forward(g, x),
        }
    }
}

#[test]
fn training_steps_through_sequential_allocate_nothing() {
    let mut params = Params::new();
    let mut r = rng();
    let fc1 = LinearConfig::new(4, 16).init(&mut params, "0", &mut r).unwrap();
    let fc2 = LinearConfig::new(16, 1).init(&mut params, "2", &mut r).unwrap();
    let boxed = Sequential::new().push(fc1).push(Activation::Relu).push(fc2);
    let enums = Sequential::from_layers(vec![Layer::Linear(fc1), Layer::Act(Activation::Relu), Layer::Linear(fc2)]);
    let (x, y) = (vec![0.25f32; 8 * 4], vec![1.0f32; 8]);
    let mut tape = Tape::new();
    let mut step = |model: &dyn Forward<Output = minnow_nn::Var>, params: &mut Params| {
        params.zero_grads();
        let mut g = tape.graph(params);
        let input = g.input_ref(&[8, 4], &x).unwrap();
        let out = model.forward(&mut g, input).unwrap();
        let loss = g.mse(out, &y, None).unwrap();
        g.backward(loss).unwrap();
    };
    step(&boxed, &mut params);
    step(&enums, &mut params);
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..10 {
            step(&boxed, &mut params);
            step(&enums, &mut params);
        }
    });
    assert_eq!(on_thread.allocations, 0, "{on_thread:?}");
}

#[test]
fn a_trunk_ends_in_features_for_a_head() {
    let mut params = Params::new();
    let mut r = rng();
    let trunk = MlpConfig { layer_norm: true, ..MlpConfig::trunk(&[6, 8, 8]) }.init(&mut params, "q", &mut r).unwrap();
    let head = DuelingHeadConfig { inputs: trunk.outputs(), actions: 3 }.init(&mut params, "q", &mut r).unwrap();
    let names: Vec<&str> = params.ids().map(|id| params.name(id)).collect();
    assert_eq!(
        names,
        [
            "q.0.weight",
            "q.0.bias",
            "q.norm0.weight",
            "q.norm0.bias",
            "q.1.weight",
            "q.1.bias",
            "q.norm1.weight",
            "q.norm1.bias",
            "q.value.weight",
            "q.value.bias",
            "q.advantage.weight",
            "q.advantage.bias"
        ]
    );
    // An empty trunk is the identity.
    let identity = MlpConfig::trunk(&[6]).init(&mut params, "empty", &mut r).unwrap();
    assert_eq!((identity.inputs(), identity.outputs()), (6, 6));
    assert!(MlpConfig::trunk(&[]).init(&mut params, "none", &mut r).is_err());
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let x = g.input(&[2, 6], &[0.3; 12]).unwrap();
    assert_eq!(identity.forward(&mut g, x).unwrap(), x);
    let h = trunk.forward(&mut g, x).unwrap();
    // The last layer is hidden too: LayerNorm then ReLU, so no negatives.
    assert!(g.value(h).iter().all(|&v| v >= 0.0));
    let q = head.forward(&mut g, h).unwrap();
    assert_eq!(g.shape(q).dims(), &[2, 3]);
}

#[test]
fn borrowed_inputs_read_the_callers_buffer() {
    let mut params = Params::new();
    let fc = LinearConfig::new(2, 1).init(&mut params, "fc", &mut rng()).unwrap();
    let data = [1.0, 2.0, 3.0, 4.0];
    let mut tape = Tape::new();
    let copied = {
        let mut g = tape.graph(&mut params);
        let x = g.input(&[2, 2], &data).unwrap();
        let y = fc.forward(&mut g, x).unwrap();
        let loss = g.mse(y, &[0.0, 1.0], None).unwrap();
        g.backward(loss).unwrap();
        (g.value(y).to_vec(), g.params().grad(fc.w).to_vec())
    };
    params.zero_grads();
    let mut g = tape.graph(&mut params);
    let x = g.input_ref(&[2, 2], &data).unwrap();
    assert_eq!(g.value(x).as_ptr(), data.as_ptr(), "no copy");
    let y = fc.forward(&mut g, x).unwrap();
    let loss = g.mse(y, &[0.0, 1.0], None).unwrap();
    g.backward(loss).unwrap();
    assert_eq!((g.value(y).to_vec(), g.params().grad(fc.w).to_vec()), copied);
    assert!(g.input_ref(&[3], &data).is_err(), "4 values cannot fill [3]");
    for _ in 0..3 {
        g.input_ref(&[4], &data).unwrap();
    }
    assert_eq!(
        g.input_ref(&[4], &data).unwrap_err(),
        minnow_autodiff::Error::TooManyBorrowed { max: minnow_autodiff::MAX_BORROWED }
    );
}

#[test]
fn regression_datasets_read_real_targets_and_batch() {
    let text = "0.5,1,10,-1\n\n1.5,2,20,-2\n2.5,3,30,-3\n";
    let data = RegressionDataset::from_csv(Cursor::new(text), 2, 2).unwrap();
    assert_eq!((data.len(), data.row(1), data.target(2)), (3, &[1.5, 2.0][..], &[30.0, -3.0][..]));
    let (train, test) = data.split(|i| i == 1);
    assert_eq!((train.len(), test.target(0)), (2, &[20.0, -2.0][..]));
    let mut batches = Batches::new(data.len(), 2, 3).unwrap();
    let (mut x, mut y) = ([0.0; 4], [0.0; 4]);
    batches.next_into(&data, &mut x, &mut y);
    for row in 0..2 {
        let i = (0..3).find(|&i| data.row(i) == &x[row * 2..row * 2 + 2]).unwrap();
        assert_eq!(&y[row * 2..row * 2 + 2], data.target(i));
    }
    let err = RegressionDataset::from_csv(Cursor::new("1,2,x\n"), 2, 1).unwrap_err();
    assert_eq!(err, NnError::BadValue { line: 1, column: 3, detail: "'x' is not a number".into() });
    assert_eq!(err.to_string(), "data: line 1, column 3: 'x' is not a number");
    let err = RegressionDataset::from_csv(Cursor::new("1,2\n"), 2, 1).unwrap_err();
    assert_eq!(err.to_string(), "data: line 1: expected 3 columns (2 features and 1 targets), found 2");
}
