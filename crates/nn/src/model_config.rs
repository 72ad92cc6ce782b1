//! [`ModelConfig`]: a config that builds a model, so that a checkpoint
//! holding the config beside the parameters rebuilds the model from the
//! file alone ([`CheckpointWriter::model`], [`Checkpoint::rebuild`]).

use crate::{
    BatchNorm1d, BatchNorm1dConfig, Checkpoint, CheckpointWriter, Conv2d, Conv2dConfig, DigitsCnn, DigitsCnnConfig,
    DigitsLstm, DigitsLstmConfig, DuelingHead, DuelingHeadConfig, Embedding, EmbeddingConfig, Gru, GruConfig,
    LayerNorm, LayerNormConfig, Linear, LinearConfig, Lstm, LstmConfig, Mlp, MlpConfig, NnError, Params,
    PolicyValueHead, PolicyValueHeadConfig, PolicyValueNet, PolicyValueNetConfig, ResidualBlock, ResidualBlockConfig,
    Result, Rnn, RnnConfig,
};
use rand::SeedableRng;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The metadata key under which [`CheckpointWriter::model`] stores the
/// model: `{"kind": .., "name": .., "config": ..}` as JSON.
pub const MODEL_KEY: &str = "model";

/// A config that builds a model whose whole state is in its [`Params`]
/// store (parameters, and buffers such as running statistics), so that
/// the config and the store rebuild it exactly. Implemented by
/// [`MlpConfig`] and the layer and network configs of this crate.
pub trait ModelConfig: Serialize + DeserializeOwned {
    /// What the config builds.
    type Model;

    /// The config's type, stored beside it: rebuilding a checkpoint as
    /// another kind of model is an error naming both.
    const KIND: &'static str;

    /// Builds the model, adding its parameters to `params` under `name`
    /// (as the config's own `init` does).
    fn build(&self, params: &mut Params, name: &str, rng: &mut rand_pcg::Pcg64Mcg) -> Result<Self::Model>;
}

macro_rules! model_config {
    ($($config:ident => $model:ident),* $(,)?) => {$(
        impl ModelConfig for $config {
            type Model = $model;
            const KIND: &'static str = stringify!($config);

            fn build(&self, params: &mut Params, name: &str, rng: &mut rand_pcg::Pcg64Mcg) -> Result<$model> {
                self.init(params, name, rng)
            }
        }
    )*};
}

model_config!(
    MlpConfig => Mlp,
    LinearConfig => Linear,
    Conv2dConfig => Conv2d,
    EmbeddingConfig => Embedding,
    RnnConfig => Rnn,
    LstmConfig => Lstm,
    GruConfig => Gru,
    ResidualBlockConfig => ResidualBlock,
    DuelingHeadConfig => DuelingHead,
    PolicyValueHeadConfig => PolicyValueHead,
    PolicyValueNetConfig => PolicyValueNet,
    DigitsCnnConfig => DigitsCnn,
    DigitsLstmConfig => DigitsLstm,
);

/// Configs whose layers start from constants (no generator).
macro_rules! model_config_without_rng {
    ($($config:ident => $model:ident),* $(,)?) => {$(
        impl ModelConfig for $config {
            type Model = $model;
            const KIND: &'static str = stringify!($config);

            fn build(&self, params: &mut Params, name: &str, _rng: &mut rand_pcg::Pcg64Mcg) -> Result<$model> {
                self.init(params, name)
            }
        }
    )*};
}

model_config_without_rng!(LayerNormConfig => LayerNorm, BatchNorm1dConfig => BatchNorm1d);

/// What [`MODEL_KEY`] holds.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored<C> {
    kind: String,
    name: String,
    config: C,
}

impl CheckpointWriter {
    /// The model: `config` (with its kind and the `name` it was built
    /// under) in the metadata and every parameter and buffer of `params`, all that
    /// [`Checkpoint::rebuild`] needs.
    ///
    /// ```
    /// use minnow_nn::{Checkpoint, CheckpointWriter, MlpConfig, Mlp, Params, Predict};
    /// use rand::SeedableRng;
    /// # fn main() -> minnow_nn::Result<()> {
    /// let (mut params, mut rng) = (Params::new(), rand_pcg::Pcg64Mcg::seed_from_u64(0));
    /// let config = MlpConfig::new(&[2, 8, 1]);
    /// let model = config.init(&mut params, "mlp", &mut rng)?;
    /// # let dir = std::env::temp_dir().join(format!("minnow-doc-{}", std::process::id()));
    /// # let path = dir.join("mlp.safetensors");
    /// CheckpointWriter::new().model(&config, "mlp", &params).save(&path)?;
    ///
    /// let (rebuilt, loaded): (Mlp, Params) = Checkpoint::load(&path)?.rebuild::<MlpConfig>()?;
    /// let x = [0.5, -1.0];
    /// assert_eq!(rebuilt.predict(&loaded, &[1, 2], &x)?, model.predict(&params, &[1, 2], &x)?);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok(())
    /// # }
    /// ```
    pub fn model<C: ModelConfig>(self, config: &C, name: &str, params: &Params) -> Self {
        let stored = Stored { kind: C::KIND.to_string(), name: name.to_string(), config };
        let json = serde_json::to_string(&stored).expect("a config of plain data always serialises");
        self.meta(MODEL_KEY, json).params(params)
    }
}

impl Checkpoint {
    /// The model a checkpoint written with [`CheckpointWriter::model`]
    /// holds, rebuilt from its config, and its parameters restored. An
    /// error names what is wrong: no model in the file, a model of another
    /// kind, a config that does not parse or build, or a parameter or
    /// buffer missing or of another shape.
    pub fn rebuild<C: ModelConfig>(&self) -> Result<(C::Model, Params)> {
        let bad = |detail: String| NnError::BadState { what: "model", detail };
        let text = self.require_meta(MODEL_KEY)?;
        let found: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let kind = found.get("kind").and_then(|k| k.as_str()).unwrap_or("(none)");
        if kind != C::KIND {
            return Err(bad(format!("the checkpoint holds a {kind}, expected a {}", C::KIND)));
        }
        let stored: Stored<C> = serde_json::from_value(found).map_err(|e| bad(format!("{}: {e}", C::KIND)))?;
        let mut params = Params::new();
        // The values are overwritten from the checkpoint: any seed will do.
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
        let model = stored.config.build(&mut params, &stored.name, &mut rng)?;
        self.restore_params(&mut params)?;
        Ok((model, params))
    }
}
