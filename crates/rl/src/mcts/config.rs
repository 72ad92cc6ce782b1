//! The search's settings, validated before any memory is allocated.

use crate::{Check, Result};
use serde::{Deserialize, Serialize};

/// How a simulation passes a chance node (a dice roll).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChanceMode {
    /// Each simulation draws an outcome with its probability.
    Sample,
    /// Each simulation after a node's first (a draw) takes the outcome
    /// furthest below its share of the node's visits (largest `p_i N -
    /// n_i`, ties to a random one): the visit counts track the
    /// probabilities closely, so the chance node's mean value is the
    /// expectation over outcomes with far less noise than sampling.
    #[default]
    Stratified,
}

/// The precision of the network's forward where a search evaluates its
/// leaves (self-play, evaluation matches, play): the config key
/// `inference`, `"f32"` (the default) or `"bf16"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Inference {
    /// The f32 forward the network trains with (bit for bit), on a copy
    /// of the weights with rows padded to cache lines
    /// (`minnow_nn::PolicyValueInference`).
    #[default]
    F32,
    /// Every Linear on bf16 weights and activations with f32 accumulation
    /// (`minnow_nn::PolicyValueInference`), the weights converted once per
    /// snapshot; logits and values within a few hundredths of the f32
    /// forward's (docs/DESIGN.md, "Compute").
    Bf16,
}

impl Inference {
    /// Whether this is the default (which configs leave unwritten, so a
    /// run's config identity is what it was before the key existed).
    pub fn is_f32(&self) -> bool {
        *self == Inference::F32
    }
}

impl std::str::FromStr for Inference {
    type Err = String;

    /// `"f32"` or `"bf16"`; otherwise a message naming the value found
    /// (a config error puts the key's path before it).
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "f32" => Ok(Inference::F32),
            "bf16" => Ok(Inference::Bf16),
            other => Err(format!("expected \"f32\" or \"bf16\", found \"{other}\"")),
        }
    }
}

/// Reads `Inference` from a string ("invalid type: integer `16`, expected
/// "f32" or "bf16"" otherwise).
struct InferenceVisitor;

impl serde::de::Visitor<'_> for InferenceVisitor {
    type Value = Inference;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(r#""f32" or "bf16""#)
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<Inference, E> {
        s.parse().map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Inference {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_str(InferenceVisitor)
    }
}

/// PUCT search with network priors: AlphaZero's selection rule
/// `Q + c_puct P sqrt(N_parent) / (1 + N_child)`, values from the view of
/// the player choosing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    /// New simulations per search (a reused subtree keeps its visits on top).
    pub simulations: u32,
    /// Weight of the prior against the mean value in PUCT (default 1.5);
    /// larger explores more.
    pub c_puct: f32,
    /// Dirichlet concentration of the root noise (AlphaZero: 0.3 for chess,
    /// 0.03 for go; about 10 / legal moves).
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors; 0 turns the noise off.
    pub dirichlet_fraction: f32,
    /// An unvisited child is valued at its parent's mean value minus this
    /// (first-play urgency; 0 values it like its parent).
    pub fpu_reduction: f32,
    /// Leaves a tree collects per batched evaluation, each descent marking
    /// its path with a virtual loss so the next one spreads out.
    pub leaves_per_round: u32,
    /// How simulations pass chance nodes (default: stratified).
    pub chance: ChanceMode,
    /// Keep the subtree under the move played (and the dice rolled) for the
    /// next search.
    pub reuse_tree: bool,
    /// 0: PUCT at the root too. Otherwise the Gumbel root with sequential
    /// halving over this many actions (Danihelka et al. 2022; see
    /// `gumbel.rs`), for small budgets: it replaces the Dirichlet noise,
    /// and the move and policy target come from the halving, not from
    /// visit counts.
    pub gumbel_considered: u32,
    /// MCTS-solver: a node with a child that wins for its mover, or whose
    /// children are all exactly known, takes the exact (minimax) value;
    /// a descent reaching a proven node backs that value up at once, a
    /// proven child is valued exactly when selecting, and the move chosen
    /// greedily is a proven win if there is one and a proven loss only if
    /// nothing else is left. Chance nodes are never proven.
    pub solver: bool,
    /// Value a finished game by the points won, over
    /// [`Game::MAX_POINTS`](minnow_envs::Game::MAX_POINTS) (backgammon: a
    /// gammon is worth 2/3), rather than by its result (every win 1):
    /// search then plays for points, and self-play's value targets are
    /// the points won, so the network learns equity. Left out of the
    /// written config when off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub points: bool,
    /// The network's precision at the leaves: `"f32"` (default) or
    /// `"bf16"` (see [`Inference`]). Left out of the written config when
    /// f32.
    #[serde(skip_serializing_if = "Inference::is_f32")]
    pub inference: Inference,
}

impl Default for MctsConfig {
    fn default() -> Self {
        Self {
            simulations: 100,
            c_puct: 1.5,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.25,
            fpu_reduction: 0.0,
            leaves_per_round: 8,
            chance: ChanceMode::Stratified,
            reuse_tree: true,
            gumbel_considered: 0,
            solver: false,
            points: false,
            inference: Inference::F32,
        }
    }
}

/// Nodes one simulation can add: a chance node and the player node after
/// it, with room for a second chance node before the leaf (a pass).
pub(crate) const NODES_PER_SIMULATION: usize = 4;

impl MctsConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("MctsConfig");
        check.count_in("simulations", "a value in 1..=4194304", self.simulations as u64, 1, 1 << 22)?;
        check.count_in("leaves_per_round", "a value in 1..=1024", self.leaves_per_round as u64, 1, 1024)?;
        check.positive("c_puct", self.c_puct)?;
        check.positive("dirichlet_alpha", self.dirichlet_alpha)?;
        check.unit_closed("dirichlet_fraction", self.dirichlet_fraction)?;
        check.count_in("gumbel_considered", "a value in 0..=4096", self.gumbel_considered as u64, 0, 4096)?;
        if !(self.fpu_reduction.is_finite() && (0.0..=2.0).contains(&self.fpu_reduction)) {
            return Err(check.value("fpu_reduction", "a value in [0, 2]", self.fpu_reduction).into());
        }
        Ok(())
    }

    /// Nodes a tree holds: every simulation of one search, twice over, so a
    /// reused subtree plus a full search fit (a search that would not fit
    /// starts from a fresh root instead).
    pub fn node_capacity(&self) -> usize {
        2 * NODES_PER_SIMULATION * (self.simulations as usize + 1) + 1
    }
}

/// Checks a move-selection temperature: finite and >= 0 (0 plays the
/// most visited move).
pub fn check_temperature(config: &'static str, field: &'static str, t: f32) -> Result<()> {
    Ok(Check(config).non_negative(field, t)?)
}
