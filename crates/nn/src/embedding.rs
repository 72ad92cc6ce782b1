//! A lookup table of learned vectors (`nn.Embedding`).

use crate::{Init, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// `nn.Embedding`: a table of `num_embeddings` rows of `embedding_dim` values.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingConfig {
    /// Rows (the index bound).
    pub num_embeddings: usize,
    /// Values per row.
    pub embedding_dim: usize,
    /// The table's init.
    pub init: Init,
}

impl EmbeddingConfig {
    /// PyTorch's default initialisation, N(0, 1).
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Self {
        Self { num_embeddings, embedding_dim, init: Init::Normal { mean: 0.0, std: 1.0 } }
    }

    /// Adds `name.weight` [num_embeddings, embedding_dim].
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<Embedding> {
        if self.num_embeddings == 0 || self.embedding_dim == 0 {
            return Err(config_error(
                name,
                format!(
                    "Embedding needs num_embeddings and embedding_dim > 0, found {} and {}",
                    self.num_embeddings, self.embedding_dim
                ),
            ));
        }
        let (v, d) = (self.num_embeddings, self.embedding_dim);
        let weight = params.add(&join(name, "weight"), &[v, d], |w| self.init.fill(w, v, d, rng))?;
        Ok(Embedding { weight, num_embeddings: v, embedding_dim: d })
    }
}

/// A built [`EmbeddingConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Embedding {
    /// The table [num_embeddings, embedding_dim].
    pub weight: ParamId,
    /// Rows.
    pub num_embeddings: usize,
    /// Values per row.
    pub embedding_dim: usize,
}

impl Embedding {
    /// indices `[L]` -> `[L, embedding_dim]`; an index of num_embeddings or
    /// more is an `Error::IndexOutOfRange`.
    pub fn forward(&self, g: &mut Graph<'_>, indices: &[u32]) -> Result<Var> {
        let w = g.param(self.weight);
        g.embedding(w, indices)
    }
}

impl Module for Embedding {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.weight);
    }
}
