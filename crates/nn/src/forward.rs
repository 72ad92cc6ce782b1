//! [`Forward`]: a module that runs on the tape's graph, mapping an input
//! node to its output node(s). Every layer implements it by calling its own
//! `forward` method, so a generic caller ([`Sequential`](crate::Sequential),
//! a user's model) can drive any of them.

use crate::{
    Activation, BatchNorm1d, Conv2d, DigitsCnn, DigitsLstm, Dropout, DuelingHead, Gru, LayerNorm, Linear, Lstm,
    MaxPool2d, Mlp, Module, PolicyValueHead, PolicyValueNet, ResidualBlock, Rnn,
};
use minnow_autodiff::{Graph, ParamId, Result, Var};

/// A module that maps an input node to its output on a [`Graph`]: one
/// [`Var`] for most layers, a `(policy, value)` pair for two-headed ones.
/// Takes `&mut self` because some layers advance state as they run
/// (dropout's generator, batch norm's running statistics); the stateless
/// ones also have a `&self` inherent `forward`.
pub trait Forward: Module + std::fmt::Debug {
    /// What the module returns.
    type Output;

    /// Records the module's ops on `g` for input `x`.
    fn forward(&mut self, g: &mut Graph<'_>, x: Var) -> Result<Self::Output>;
}

impl<M: Module + ?Sized> Module for Box<M> {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        (**self).visit(f)
    }

    fn set_training(&mut self, training: bool) {
        (**self).set_training(training)
    }
}

impl<M: Forward + ?Sized> Forward for Box<M> {
    type Output = M::Output;

    fn forward(&mut self, g: &mut Graph<'_>, x: Var) -> Result<M::Output> {
        (**self).forward(g, x)
    }
}

/// An activation has no parameters.
impl Module for Activation {
    fn visit(&self, _f: &mut dyn FnMut(ParamId)) {}
}

impl Forward for Activation {
    type Output = Var;

    fn forward(&mut self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        self.apply(g, x)
    }
}

/// `impl Forward` for layers whose inherent `forward` takes `&self` or
/// `&mut self` and returns `$output`.
macro_rules! forward_by_method {
    ($output:ty: $($layer:ty),* $(,)?) => {$(
        impl Forward for $layer {
            type Output = $output;

            fn forward(&mut self, g: &mut Graph<'_>, x: Var) -> Result<$output> {
                <$layer>::forward(self, g, x)
            }
        }
    )*};
}

forward_by_method!(Var: Linear, LayerNorm, Mlp, ResidualBlock, DuelingHead, Conv2d, MaxPool2d, Rnn, Lstm, Gru);
forward_by_method!(Var: Dropout, BatchNorm1d, DigitsCnn, DigitsLstm);
forward_by_method!((Var, Var): PolicyValueHead, PolicyValueNet);
