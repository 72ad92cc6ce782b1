//! A small CNN for the 8x8 digits: two blocks of 3x3 convolution (padding
//! 1), ReLU and 2x2 max pooling (8x8 -> 4x4 -> 2x2), then a hidden ReLU
//! layer and 10 logits. The input is the flat image [B, 64] as the dataset
//! stores it, viewed as [B, 1, 8, 8] without a copy.

use crate::{Conv2d, Conv2dConfig, Forward, Linear, LinearConfig, MaxPool2d, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use minnow_tensor::{Shape, TensorError};
use rand::Rng;

const SIDE: usize = 8;
const CLASSES: usize = 10;

/// The digits CNN: two Conv2d + ReLU + MaxPool2d stages, then two Linear layers to 10 classes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DigitsCnnConfig {
    /// Output channels of the two convolutions.
    pub channels: [usize; 2],
    /// Width of the hidden fully connected layer.
    pub hidden: usize,
}

impl Default for DigitsCnnConfig {
    fn default() -> Self {
        Self { channels: [16, 32], hidden: 64 }
    }
}

impl DigitsCnnConfig {
    /// Adds `name.conv1`, `name.conv2`, `name.fc1` and `name.fc2`.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<DigitsCnn> {
        let [c1, c2] = self.channels;
        if c1 == 0 || c2 == 0 || self.hidden == 0 {
            return Err(config_error(
                name,
                format!("DigitsCnn needs channels and hidden > 0, found {:?} and {}", self.channels, self.hidden),
            ));
        }
        let conv = |inputs, outputs| Conv2dConfig { padding: 1, ..Conv2dConfig::new(inputs, outputs, 3) };
        let (conv1, conv2) = (conv(1, c1), conv(c1, c2));
        let pool = MaxPool2d;
        // 8 -> conv 8 -> pool 4 -> conv 4 -> pool 2, checked by the layers.
        let [h, w] = conv1.output_size(&join(name, "conv1"), SIDE, SIDE)?;
        let [h, w] = pool.output_size(&join(name, "pool1"), h, w)?;
        let [h, w] = conv2.output_size(&join(name, "conv2"), h, w)?;
        let [h, w] = pool.output_size(&join(name, "pool2"), h, w)?;
        let flat = c2 * h * w;
        Ok(DigitsCnn {
            conv1: conv1.init(params, &join(name, "conv1"), rng)?,
            conv2: conv2.init(params, &join(name, "conv2"), rng)?,
            fc1: LinearConfig::new(flat, self.hidden).init(params, &join(name, "fc1"), rng)?,
            fc2: LinearConfig::new(self.hidden, CLASSES).init(params, &join(name, "fc2"), rng)?,
            pool,
        })
    }
}

/// A built [`DigitsCnnConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DigitsCnn {
    /// The first convolution.
    pub conv1: Conv2d,
    /// The second convolution.
    pub conv2: Conv2d,
    /// The hidden Linear.
    pub fc1: Linear,
    /// The output Linear (10 logits).
    pub fc2: Linear,
    /// The pooling after each convolution.
    pub pool: MaxPool2d,
}

impl Forward for DigitsCnn {
    type Output = Var;

    /// Images x [B, 64] (pixels in [0, 1]) -> logits [B, 10].
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        const OP: &str = "DigitsCnn";
        let shape = g.shape(x);
        let (batch, pixels) = shape.as_matrix(OP)?;
        if pixels != SIDE * SIDE {
            return Err(
                TensorError::ShapeMismatch { op: OP, lhs: Shape::matrix(batch, SIDE * SIDE), rhs: shape }.into()
            );
        }
        let mut h = g.reshape(x, &[batch, 1, SIDE, SIDE])?;
        for conv in [&self.conv1, &self.conv2] {
            h = conv.forward(g, h)?;
            h = g.relu(h)?;
            h = self.pool.forward(g, h)?;
        }
        let flat = g.shape(h).dims()[1..].iter().product();
        let h = g.reshape(h, &[batch, flat])?;
        let h = self.fc1.forward_relu(g, h)?;
        self.fc2.forward(g, h)
    }
}

impl Module for DigitsCnn {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.conv1.visit(f);
        self.conv2.visit(f);
        self.fc1.visit(f);
        self.fc2.visit(f);
    }
}
