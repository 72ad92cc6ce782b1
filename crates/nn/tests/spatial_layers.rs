//! Conv2d, MaxPool2d, BatchNorm1d, Dropout and Embedding layers: training
//! and inference graphs, PyTorch's running-statistics update, buffers in
//! checkpoints, dropout masks from the graph's seed, and config errors.

use minnow_autodiff::Error;
use minnow_nn::{
    Activation, BatchNorm1dConfig, CheckpointWriter, Conv2dConfig, DigitsCnnConfig, DropoutConfig, EmbeddingConfig,
    Forward, MaxPool2d, Module, NnError, Params, Tape,
};
use rand::SeedableRng;

fn rng() -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(5)
}

fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// The message of a layer's config error or of the graph's.
fn config_message(e: impl Into<NnError>) -> String {
    match e.into() {
        NnError::Config { layer, detail } => format!("{layer}: {detail}"),
        NnError::Autodiff(Error::Config(m)) => m,
        other => panic!("expected a config error, found {other:?}"),
    }
}

#[test]
fn batch_norm_updates_running_statistics_like_pytorch() {
    // torch.nn.BatchNorm1d(2) in training mode on
    // x = [[1, 10], [2, 20], [3, 30], [4, 40]]:
    // batch mean [2.5, 25], biased var [1.25, 125], unbiased [5/3, 500/3];
    // running_mean = 0.9 * 0 + 0.1 * mean = [0.25, 2.5];
    // running_var = 0.9 * 1 + 0.1 * unbiased = [1.0666667, 17.566667].
    let mut params = Params::new();
    let bn = BatchNorm1dConfig::new(2).init(&mut params, "bn").unwrap();
    let x = [1.0f32, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0];
    let mut tape = Tape::new();
    let y = {
        let mut g = tape.graph(&mut params);
        let xv = g.input(&[4, 2], &x).unwrap();
        let y = bn.forward(&mut g, xv).unwrap();
        g.value(y).to_vec()
    };
    let (mean, var) = (params.buffer(bn.running_mean), params.buffer(bn.running_var));
    assert!(close(mean, &[0.25, 2.5], 1e-6), "{mean:?}");
    assert!(close(var, &[1.0666667, 17.566667], 1e-5), "{var:?}");
    // Training output: the batch normalised with its own biased variance.
    let s0 = 1.0 / (1.25f32 + 1e-5).sqrt();
    let s1 = 1.0 / (125.0f32 + 1e-5).sqrt();
    let want = [-1.5 * s0, -15.0 * s1, -0.5 * s0, -5.0 * s1, 0.5 * s0, 5.0 * s1, 1.5 * s0, 15.0 * s1];
    assert!(close(&y, &want, 1e-5), "{y:?}");

    // A second step moves the statistics again: 0.9 * 0.25 + 0.1 * 2.5.
    {
        let mut g = tape.graph(&mut params);
        let xv = g.input(&[4, 2], &x).unwrap();
        bn.forward(&mut g, xv).unwrap();
    }
    let mean = params.buffer(bn.running_mean);
    assert!(close(mean, &[0.475, 4.75], 1e-6), "{mean:?}");

    // An inference graph evaluates: the running statistics normalise and
    // stay put, even for a batch of one.
    let before = params.clone();
    let mut g = tape.inference(&params);
    let xv = g.input(&[1, 2], &[1.0, 10.0]).unwrap();
    let y = bn.forward(&mut g, xv).unwrap();
    let (m, v) = (params.buffer(bn.running_mean), params.buffer(bn.running_var));
    let want = [(1.0 - m[0]) / (v[0] + 1e-5).sqrt(), (10.0 - m[1]) / (v[1] + 1e-5).sqrt()];
    assert!(close(g.value(y), &want, 1e-6));
    assert_eq!(params, before);
}

#[test]
fn batch_norm_buffers_round_trip_through_a_checkpoint() {
    let mut params = Params::new();
    let config = BatchNorm1dConfig::new(3);
    let bn = config.init(&mut params, "net.bn").unwrap();
    params.buffer_mut(bn.running_mean).copy_from_slice(&[1.0, 2.0, 3.0]);
    params.buffer_mut(bn.running_var).copy_from_slice(&[4.0, 5.0, 6.0]);
    assert_eq!(bn.param_ids().len(), 2, "buffers are not parameters");
    let names: Vec<&str> = params.buffer_ids().map(|id| params.buffer_name(id)).collect();
    assert_eq!(names, ["net.bn.running_mean", "net.bn.running_var"]);

    let dir = std::env::temp_dir().join(format!("minnow-bn-{}", std::process::id()));
    let path = dir.join("bn.safetensors");
    CheckpointWriter::new().model(&config, "net.bn", &params).save(&path).unwrap();
    let checkpoint = minnow_nn::Checkpoint::load(&path).unwrap();
    assert_eq!(checkpoint.tensor("net.bn.running_var"), Some(&[4.0, 5.0, 6.0][..]));
    let mut fresh_params = Params::new();
    let fresh = config.init(&mut fresh_params, "net.bn").unwrap();
    checkpoint.restore_params(&mut fresh_params).unwrap();
    assert_eq!(fresh_params.buffer(fresh.running_mean), &[1.0, 2.0, 3.0]);
    assert_eq!(fresh_params, params);
    let (rebuilt, loaded) = checkpoint.rebuild::<BatchNorm1dConfig>().unwrap();
    assert_eq!((rebuilt, &loaded), (bn, &params));
    let mut other = Params::new();
    config.init(&mut other, "elsewhere").unwrap();
    assert!(matches!(checkpoint.restore_params(&mut other), Err(NnError::MissingTensor { .. })));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn dropout_drops_in_training_and_is_the_identity_in_eval() {
    let dropout = DropoutConfig::new(0.5).init().unwrap();
    let mut params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.graph(&mut params);
    g.set_seed(3);
    let x = g.input(&[50, 40], &[1.0; 2000]).unwrap();
    let a = dropout.forward(&mut g, x).unwrap();
    let b = dropout.forward(&mut g, x).unwrap();
    let zeros = g.value(a).iter().filter(|&&v| v == 0.0).count();
    assert!((900..1100).contains(&zeros), "{zeros} of 2000 dropped at p = 0.5");
    assert!(g.value(a).iter().all(|&v| v == 0.0 || v == 2.0));
    assert_ne!(g.value(a), g.value(b), "each call draws a new mask");

    // An inference graph passes values through and needs no seed.
    let mut g = tape.inference(&params);
    let x = g.input(&[2, 2], &[1.0; 4]).unwrap();
    assert_eq!(dropout.forward(&mut g, x).unwrap(), x);

    // An unseeded training graph refuses, rather than repeat its masks.
    let mut g = tape.graph(&mut params);
    let x = g.input(&[2, 2], &[1.0; 4]).unwrap();
    let message = config_message(dropout.forward(&mut g, x).unwrap_err());
    assert!(message.contains("Graph::set_seed"), "{message}");
}

#[test]
fn dropout_masks_replay_from_the_graph_seed() {
    let (first, second) = (DropoutConfig::new(0.3).init().unwrap(), DropoutConfig::new(0.3).init().unwrap());
    let masks = |seed: u64| {
        let (mut params, mut tape) = (Params::new(), Tape::new());
        let mut g = tape.graph(&mut params);
        g.set_seed(seed);
        let x = g.input(&[8, 8], &[1.0; 64]).unwrap();
        [first, second].map(|layer| {
            let y = layer.forward(&mut g, x).unwrap();
            g.value(y).to_vec()
        })
    };
    let [a, b] = masks(11);
    assert_eq!(masks(11), [a.clone(), b.clone()], "a step replays from its seed");
    assert_ne!(a, b, "two layers of one step draw different masks");
    assert_ne!(masks(12)[0], a, "another step, other masks");
}

#[test]
fn config_errors_name_the_layer_and_the_value() {
    let mut params = Params::new();
    let mut r = rng();
    for (p, shown) in [(-0.1f32, "-0.1"), (1.0, "1"), (f32::NAN, "NaN")] {
        let message = config_message(DropoutConfig::new(p).init().unwrap_err());
        assert_eq!(message, format!("Dropout: p must be in [0, 1), found {shown}"));
    }
    assert!(DropoutConfig::new(0.0).init().is_ok());

    let message = config_message(Conv2dConfig::new(0, 4, 3).init(&mut params, "c", &mut r).unwrap_err());
    assert_eq!(message, "c: Conv2d needs in_channels and out_channels > 0, found 0 and 4");
    let message = config_message(Conv2dConfig::new(1, 4, 0).init(&mut params, "c", &mut r).unwrap_err());
    assert_eq!(message, "c: Conv2d needs a kernel of at least 1x1, found 0x0");
    let strided = Conv2dConfig { stride: 0, ..Conv2dConfig::new(1, 4, 3) };
    assert!(strided.init(&mut params, "c", &mut r).is_err());
    let conv = Conv2dConfig { padding: 1, ..Conv2dConfig::new(1, 4, 5) };
    assert_eq!(conv.output_size("c", 4, 4).unwrap(), [2, 2]);
    let message = config_message(conv.output_size("c", 2, 2).unwrap_err());
    assert_eq!(message, "c: Conv2d kernel 5x5 is larger than the padded input 4x4 (input 2x2, padding 1)");
    // The same mistake at run time, from the graph.
    let layer = conv.init(&mut params, "conv", &mut r).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let x = g.input(&[1, 1, 2, 2], &[0.0; 4]).unwrap();
    let message = config_message(layer.forward(&mut g, x).unwrap_err());
    assert_eq!(message, "conv2d: kernel 5x5 is larger than the padded input 4x4 (input 2x2, padding 1)");
    assert!(MaxPool2d.output_size("pool", 1, 5).is_err());
    assert!(MaxPool2d.forward(&mut g, x).is_ok());

    let message = config_message(BatchNorm1dConfig::new(0).init(&mut params, "bn").unwrap_err());
    assert_eq!(message, "bn: BatchNorm1d needs features > 0, found 0");
    let bad_momentum = BatchNorm1dConfig { momentum: 1.5, ..BatchNorm1dConfig::new(2) };
    assert!(bad_momentum.init(&mut params, "bn").is_err());
    let message = config_message(EmbeddingConfig::new(0, 4).init(&mut params, "emb", &mut r).unwrap_err());
    assert_eq!(message, "emb: Embedding needs num_embeddings and embedding_dim > 0, found 0 and 4");
    let message =
        config_message(DigitsCnnConfig { channels: [0, 8], hidden: 16 }.init(&mut params, "cnn", &mut r).unwrap_err());
    assert_eq!(message, "cnn: DigitsCnn needs channels and hidden > 0, found [0, 8] and 16");
}

#[test]
fn embedding_gathers_rows_and_rejects_bad_indices() {
    let mut params = Params::new();
    let emb = EmbeddingConfig::new(5, 3).init(&mut params, "emb", &mut rng()).unwrap();
    assert_eq!(params.shape(emb.weight).dims(), &[5, 3]);
    let table = params.value(emb.weight).to_vec();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let y = emb.forward(&mut g, &[4, 0, 4]).unwrap();
    assert_eq!(g.shape(y).dims(), &[3, 3]);
    assert_eq!(&g.value(y)[..3], &table[12..15]);
    assert_eq!(&g.value(y)[3..6], &table[..3]);
    assert_eq!(emb.forward(&mut g, &[5]).unwrap_err(), Error::IndexOutOfRange { op: "embedding", index: 5, bound: 5 });
}

#[test]
fn conv_layers_have_pytorch_layouts_and_the_cnn_checks_its_input() {
    let mut params = Params::new();
    let cnn = DigitsCnnConfig::default().init(&mut params, "cnn", &mut rng()).unwrap();
    let shape = |name: &str| params.shape(params.find(name).unwrap()).dims().to_vec();
    assert_eq!(shape("cnn.conv1.weight"), [16, 1, 3, 3]);
    assert_eq!(shape("cnn.conv2.weight"), [32, 16, 3, 3]);
    assert_eq!(shape("cnn.fc1.weight"), [64, 128]);
    assert_eq!(shape("cnn.fc2.bias"), [10]);
    assert_eq!(params.numel(), 160 + 4640 + 8256 + 650);
    assert_eq!(cnn.param_ids().len(), params.len());
    // Conv weights start at U(±1/√(C kh kw)), PyTorch's default.
    let bound = 1.0 / (16.0f32 * 9.0).sqrt();
    assert!(params.value(cnn.conv2.w).iter().all(|w| w.abs() <= bound));

    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let x = g.input(&[3, 64], &[0.5; 192]).unwrap();
    let logits = cnn.forward(&mut g, x).unwrap();
    assert_eq!(g.shape(logits).dims(), &[3, 10]);
    let wrong = g.input(&[2, 63], &[0.5; 126]).unwrap();
    assert!(matches!(cnn.forward(&mut g, wrong), Err(Error::Shape(_))));
}

#[test]
fn gelu_is_an_activation() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let x = g.input(&[3], &[-1.0, 0.0, 1.0]).unwrap();
    let y = Activation::Gelu.forward(&mut g, x).unwrap();
    assert!(close(g.value(y), &[-0.15865526, 0.0, 0.8413447], 1e-6), "{:?}", g.value(y));
}
