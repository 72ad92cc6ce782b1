//! [`Forward`]: a module that runs on the tape's graph, mapping an input
//! node to its output node(s). It is every layer's one forward, so a
//! generic caller ([`Sequential`](crate::Sequential), a user's model, a
//! trainer) drives any of them.

use crate::Module;
use minnow_autodiff::{Graph, ParamId, Result, Var};

/// A module that maps an input node to its output on a [`Graph`]: one
/// [`Var`] for most layers, a `(policy, value)` pair for two-headed ones.
///
/// Takes `&self`: what changes as a model runs lives on the graph, not in
/// the layer. The graph says whether this is a training step
/// ([`Graph::is_training`]: dropout drops, batch norm uses the batch's
/// statistics), gives random ops their seeds ([`Graph::next_seed`]), and
/// lets a training step write the store's buffers (running statistics).
/// So one layer value serves a training step, an evaluation and a target
/// network at once, and can be shared across threads.
pub trait Forward: Module + std::fmt::Debug {
    /// What the module returns.
    type Output;

    /// Records the module's ops on `g` for input `x`.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Self::Output>;
}

impl<M: Module + ?Sized> Module for Box<M> {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        (**self).visit(f)
    }
}

impl<M: Forward + ?Sized> Forward for Box<M> {
    type Output = M::Output;

    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<M::Output> {
        (**self).forward(g, x)
    }
}
