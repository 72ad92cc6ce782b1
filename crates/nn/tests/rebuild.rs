//! Models rebuilt from a checkpoint file alone (`CheckpointWriter::model`,
//! `Checkpoint::rebuild`), their configs round-tripping through serde.

use minnow_nn::testing::ScratchDir;
use minnow_nn::{
    Activation, Checkpoint, CheckpointWriter, Conv2dConfig, DigitsCnnConfig, Forward, Init, LayerNormConfig,
    LinearConfig, Mlp, MlpConfig, NnError, Params, Predict, Tape,
};
use minnow_optim::{AdamConfig, Optimizer};

use minnow_nn::testing::{bits, inputs, rng};

/// Adam steps on y = x0 - 2 x1 from a few rows: a trained model whose
/// weights no init would give.
fn trained(config: &MlpConfig) -> (Mlp, Params) {
    let mut params = Params::new();
    let model = config.init(&mut params, "regressor", &mut rng(7)).unwrap();
    let mut adam = AdamConfig { lr: 1e-2, ..AdamConfig::default() }.build(&params).unwrap();
    let x = inputs(16 * 2, 5);
    let y: Vec<f32> = x.chunks_exact(2).map(|r| r[0] - 2.0 * r[1]).collect();
    let mut tape = Tape::new();
    for _ in 0..50 {
        params.zero_grads();
        let mut g = tape.graph(&mut params);
        let input = g.input_ref(&[16, 2], &x).unwrap();
        let pred = model.forward(&mut g, input).unwrap();
        let loss = g.mse(pred, &y, None).unwrap();
        g.backward(loss).unwrap();
        adam.step(&mut params).unwrap();
    }
    (model, params)
}

#[test]
fn a_trained_mlp_saved_then_rebuilt_predicts_identically() {
    let dir = ScratchDir::new("rebuild");
    let config = MlpConfig {
        activation: Activation::LeakyRelu(0.05),
        layer_norm: true,
        output_activation: Activation::Tanh,
        weight_init: Init::XavierUniform,
        ..MlpConfig::new(&[2, 12, 12, 1])
    };
    let (model, params) = trained(&config);
    let path = dir.join("regressor.safetensors");
    CheckpointWriter::new().model(&config, "regressor", &params).meta("step", "50").save(&path).unwrap();

    let checkpoint = Checkpoint::load(&path).unwrap();
    let (rebuilt, loaded) = checkpoint.rebuild::<MlpConfig>().unwrap();
    assert_eq!(rebuilt, model);
    assert_eq!(loaded.values(), params.values());
    let x = inputs(9 * 2, 6);
    let want = model.predict(&params, &[9, 2], &x).unwrap();
    assert_eq!(bits(&rebuilt.predict(&loaded, &[9, 2], &x).unwrap()), bits(&want));

    // Another kind of model, or none, is refused naming what was found.
    let err = checkpoint.rebuild::<DigitsCnnConfig>().unwrap_err();
    assert_eq!(err.to_string(), "checkpoint: model: the checkpoint holds a MlpConfig, expected a DigitsCnnConfig");
    let bare = dir.join("bare.safetensors");
    CheckpointWriter::new().params(&params).save(&bare).unwrap();
    let err = Checkpoint::load(&bare).unwrap().rebuild::<MlpConfig>().unwrap_err();
    assert!(matches!(err, NnError::MissingMeta { ref key } if key == "model"), "{err}");
}

#[test]
fn configs_round_trip_through_json_and_default_what_new_sets() {
    let mlp = MlpConfig { activation: Activation::LeakyRelu(0.1), trunk: true, ..MlpConfig::new(&[4, 8]) };
    let json = serde_json::to_string(&mlp).unwrap();
    assert_eq!(serde_json::from_str::<MlpConfig>(&json).unwrap(), mlp);
    assert_eq!(serde_json::from_str::<MlpConfig>(r#"{"sizes": [2, 16, 1]}"#).unwrap(), MlpConfig::new(&[2, 16, 1]));
    let parsed: MlpConfig = serde_json::from_str(
        r#"{"sizes": [3, 1], "activation": "tanh", "weight_init": {"normal": {"mean": 0, "std": 0.5}}}"#,
    )
    .unwrap();
    assert_eq!((parsed.activation, parsed.weight_init), (Activation::Tanh, Init::Normal { mean: 0.0, std: 0.5 }));
    assert!(serde_json::from_str::<MlpConfig>(r#"{"sizes": [2, 1], "hiden": 3}"#).is_err());

    let linear = LinearConfig { bias: false, bias_init: Init::Constant(0.5), ..LinearConfig::new(3, 2) };
    assert_eq!(serde_json::from_str::<LinearConfig>(&serde_json::to_string(&linear).unwrap()).unwrap(), linear);
    assert_eq!(
        serde_json::from_str::<LinearConfig>(r#"{"inputs": 3, "outputs": 2}"#).unwrap(),
        LinearConfig::new(3, 2)
    );
    let conv = Conv2dConfig { stride: 2, weight_init: Init::Uniform(-0.1, 0.1), ..Conv2dConfig::new(1, 4, 3) };
    assert_eq!(serde_json::from_str::<Conv2dConfig>(&serde_json::to_string(&conv).unwrap()).unwrap(), conv);
    let conv_json = r#"{"in_channels": 1, "out_channels": 4, "kernel_size": [3, 3]}"#;
    assert_eq!(serde_json::from_str::<Conv2dConfig>(conv_json).unwrap(), Conv2dConfig::new(1, 4, 3));
    assert_eq!(serde_json::from_str::<LayerNormConfig>(r#"{"size": 8}"#).unwrap(), LayerNormConfig::new(8));
    assert_eq!(serde_json::to_string(&Init::PyTorchLinear).unwrap(), r#""pytorch_linear""#);
}
