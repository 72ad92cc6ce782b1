//! 2-D convolution and 2x2 max pooling layers on NCHW images.

use crate::{Forward, Init, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// Conv2d with PyTorch's weight layout [out, in, kh, kw] and zero padding
/// on every side. In a config file `stride`, `padding`, `bias` and the
/// inits may be left out (they default as [`Conv2dConfig::new`] sets them).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conv2dConfig {
    /// Input channels.
    pub in_channels: usize,
    /// Output channels (kernels).
    pub out_channels: usize,
    /// [kh, kw]
    pub kernel_size: [usize; 2],
    /// Step between windows.
    #[serde(default = "crate::serde_default::stride")]
    pub stride: usize,
    /// Zeros added on every side.
    #[serde(default)]
    pub padding: usize,
    /// Whether to add a bias per output channel.
    #[serde(default = "crate::serde_default::yes")]
    pub bias: bool,
    /// The kernels' init.
    #[serde(default = "crate::serde_default::pytorch_linear")]
    pub weight_init: Init,
    /// The bias's init.
    #[serde(default = "crate::serde_default::pytorch_linear")]
    pub bias_init: Init,
}

impl Conv2dConfig {
    /// PyTorch's defaults for a square kernel: stride 1, no padding, bias
    /// on, U(-1/√fan_in, 1/√fan_in) with fan_in = in_channels kh kw.
    pub fn new(in_channels: usize, out_channels: usize, kernel_size: usize) -> Self {
        Self {
            in_channels,
            out_channels,
            kernel_size: [kernel_size; 2],
            stride: 1,
            padding: 0,
            bias: true,
            weight_init: Init::PyTorchLinear,
            bias_init: Init::PyTorchLinear,
        }
    }

    /// An error naming the first invalid field.
    pub fn validate(&self, name: &str) -> crate::Result<()> {
        let [kh, kw] = self.kernel_size;
        if self.in_channels == 0 || self.out_channels == 0 {
            return Err(config_error(
                name,
                format!(
                    "Conv2d needs in_channels and out_channels > 0, found {} and {}",
                    self.in_channels, self.out_channels
                ),
            ));
        }
        if kh == 0 || kw == 0 {
            return Err(config_error(name, format!("Conv2d needs a kernel of at least 1x1, found {kh}x{kw}")));
        }
        if self.stride == 0 {
            return Err(config_error(name, "Conv2d needs stride >= 1, found 0"));
        }
        let limit = u16::MAX as usize;
        if kh.max(kw).max(self.stride).max(self.padding) > limit {
            return Err(config_error(
                name,
                format!(
                    "Conv2d kernel {kh}x{kw}, stride {} and padding {} must each be at most {limit}",
                    self.stride, self.padding
                ),
            ));
        }
        Ok(())
    }

    /// The output [height, width] for an input of `height` x `width`, or
    /// an error when the kernel is larger than the padded input.
    pub fn output_size(&self, name: &str, height: usize, width: usize) -> crate::Result<[usize; 2]> {
        self.validate(name)?;
        let [kh, kw] = self.kernel_size;
        let (ph, pw) = (height + 2 * self.padding, width + 2 * self.padding);
        if kh > ph || kw > pw {
            return Err(config_error(
                name,
                format!(
                    "Conv2d kernel {kh}x{kw} is larger than the padded input {ph}x{pw} (input {height}x{width}, padding {})",
                    self.padding
                ),
            ));
        }
        Ok([(ph - kh) / self.stride + 1, (pw - kw) / self.stride + 1])
    }

    /// Adds `name.weight` `[out, in, kh, kw]` (and `name.bias` `[out]`).
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<Conv2d> {
        self.validate(name)?;
        let [kh, kw] = self.kernel_size;
        let (fan_in, fan_out) = (self.in_channels * kh * kw, self.out_channels * kh * kw);
        let dims = [self.out_channels, self.in_channels, kh, kw];
        let w = params.add(&join(name, "weight"), &dims, |v| self.weight_init.fill(v, fan_in, fan_out, rng))?;
        let b = if self.bias {
            Some(
                params
                    .add(&join(name, "bias"), &[self.out_channels], |v| self.bias_init.fill(v, fan_in, fan_out, rng))?,
            )
        } else {
            None
        };
        Ok(Conv2d {
            w,
            b,
            in_channels: self.in_channels,
            out_channels: self.out_channels,
            kernel_size: self.kernel_size,
            stride: self.stride,
            padding: self.padding,
        })
    }
}

/// A built [`Conv2dConfig`]: kernels [out, in, kh, kw] and a bias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conv2d {
    /// The kernels [out, in, kh, kw].
    pub w: ParamId,
    /// The bias `[out]`, if any.
    pub b: Option<ParamId>,
    /// Input channels.
    pub in_channels: usize,
    /// Output channels.
    pub out_channels: usize,
    /// Kernel [height, width].
    pub kernel_size: [usize; 2],
    /// Step between windows.
    pub stride: usize,
    /// Zeros added on every side.
    pub padding: usize,
}

impl Forward for Conv2d {
    type Output = Var;

    /// x [N, in, H, W] -> [N, out, Ho, Wo]
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (w, b) = (g.param(self.w), self.b.map(|b| g.param(b)));
        g.conv2d(x, w, b, self.stride, self.padding)
    }
}

impl Module for Conv2d {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.w);
        if let Some(b) = self.b {
            f(b);
        }
    }
}

/// Max pooling over 2x2 windows with stride 2 (`nn.MaxPool2d(2)`): halves
/// the height and width, rounding down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MaxPool2d;

impl Forward for MaxPool2d {
    type Output = Var;

    /// x [N, C, H, W] -> [N, C, H / 2, W / 2]
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        g.max_pool2d(x)
    }
}

impl MaxPool2d {
    /// The output [height, width] for an input of `height` x `width`, or an
    /// error when the input is smaller than a window.
    pub fn output_size(&self, name: &str, height: usize, width: usize) -> crate::Result<[usize; 2]> {
        if height < 2 || width < 2 {
            return Err(config_error(name, format!("MaxPool2d input {height}x{width} is smaller than the 2x2 window")));
        }
        Ok([height / 2, width / 2])
    }
}

impl Module for MaxPool2d {
    fn visit(&self, _f: &mut dyn FnMut(ParamId)) {}
}
