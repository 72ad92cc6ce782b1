use crate::{Result, Shape, TensorError};
use minnow_arena::{AlignedBuf, Arena, Pool};
use std::fmt;

/// An owned, contiguous, row-major tensor in a 64-byte aligned buffer.
#[derive(Clone, PartialEq)]
pub struct Tensor {
    shape: Shape,
    data: AlignedBuf,
}

/// A borrowed tensor: contiguous row-major data, or (rank 2 only) the
/// transpose of it, which `matmul_into` reads without copying.
#[derive(Clone, Copy)]
pub struct TensorRef<'a> {
    shape: Shape,
    data: &'a [f32],
    transposed: bool,
}

/// A borrowed, mutable, contiguous row-major tensor: the destination of ops.
pub struct TensorMut<'a> {
    shape: Shape,
    data: &'a mut [f32],
}

fn check_len(op: &'static str, shape: Shape, len: usize) -> Result<()> {
    if shape.numel() == len { Ok(()) } else { Err(TensorError::DataLength { op, shape, numel: shape.numel(), len }) }
}

impl Tensor {
    /// A zero tensor of this shape.
    pub fn zeros(dims: &[usize]) -> Result<Self> {
        let shape = Shape::new(dims)?;
        Ok(Self { shape, data: AlignedBuf::zeros(shape.numel()) })
    }

    /// A tensor holding a copy of `values`, which must fill the shape exactly.
    pub fn from_slice(dims: &[usize], values: &[f32]) -> Result<Self> {
        let shape = Shape::new(dims)?;
        check_len("Tensor::from_slice", shape, values.len())?;
        Ok(Self { shape, data: AlignedBuf::from_slice(values) })
    }

    /// A zero tensor whose buffer comes from (and can go back to) a pool.
    pub fn from_pool(pool: &mut Pool, dims: &[usize]) -> Result<Self> {
        let shape = Shape::new(dims)?;
        Ok(Self { shape, data: pool.take(shape.numel()) })
    }

    /// Hands the buffer back to a pool for reuse.
    pub fn recycle(self, pool: &mut Pool) {
        pool.give(self.data);
    }

    /// A zeroed per-step tensor in an arena; gone at the arena's reset.
    pub fn in_arena<'a>(arena: &'a Arena, dims: &[usize]) -> Result<TensorMut<'a>> {
        let shape = Shape::new(dims)?;
        Ok(TensorMut { shape, data: arena.alloc(shape.numel()) })
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    pub fn data(&self) -> &[f32] {
        &self.data
    }

    pub fn data_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }

    /// The same data under another shape with as many elements.
    pub fn reshape(&mut self, dims: &[usize]) -> Result<()> {
        let shape = Shape::new(dims)?;
        check_len("Tensor::reshape", shape, self.data.len())?;
        self.shape = shape;
        Ok(())
    }
}

impl<'a> TensorRef<'a> {
    /// A view of `data` with this shape, which it must fill exactly.
    pub fn new(dims: &[usize], data: &'a [f32]) -> Result<Self> {
        let shape = Shape::new(dims)?;
        check_len("TensorRef::new", shape, data.len())?;
        Ok(Self { shape, data, transposed: false })
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The underlying row-major storage (of the untransposed matrix).
    pub fn storage(&self) -> &'a [f32] {
        self.data
    }

    pub fn is_transposed(&self) -> bool {
        self.transposed
    }

    /// The data, if the view is contiguous row-major (not transposed).
    pub fn data(&self, op: &'static str) -> Result<&'a [f32]> {
        if self.transposed { Err(TensorError::NotContiguous { op, shape: self.shape }) } else { Ok(self.data) }
    }

    /// The transposed view of a matrix: free, no data moves.
    pub fn t(self) -> Result<Self> {
        let (r, c) = self.shape.as_matrix("TensorRef::t")?;
        Ok(Self { shape: Shape::matrix(c, r), transposed: !self.transposed, data: self.data })
    }
}

impl<'a> TensorMut<'a> {
    /// A mutable view of `data` with this shape, which it must fill exactly.
    pub fn new(dims: &[usize], data: &'a mut [f32]) -> Result<Self> {
        let shape = Shape::new(dims)?;
        check_len("TensorMut::new", shape, data.len())?;
        Ok(Self { shape, data })
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    pub fn data(&self) -> &[f32] {
        self.data
    }

    pub fn data_mut(&mut self) -> &mut [f32] {
        self.data
    }

    /// Gives up the view, keeping the borrow of the data.
    pub fn into_data(self) -> &'a mut [f32] {
        self.data
    }
}

/// Anything an op can read from.
pub trait AsTensor {
    fn view(&self) -> TensorRef<'_>;
}

/// Anything an op can write into.
pub trait AsTensorMut {
    fn view_mut(&mut self) -> TensorMut<'_>;
}

impl AsTensor for Tensor {
    fn view(&self) -> TensorRef<'_> {
        TensorRef { shape: self.shape, data: &self.data, transposed: false }
    }
}

impl AsTensor for TensorRef<'_> {
    fn view(&self) -> TensorRef<'_> {
        *self
    }
}

impl AsTensor for TensorMut<'_> {
    fn view(&self) -> TensorRef<'_> {
        TensorRef { shape: self.shape, data: self.data, transposed: false }
    }
}

impl AsTensorMut for Tensor {
    fn view_mut(&mut self) -> TensorMut<'_> {
        TensorMut { shape: self.shape, data: &mut self.data }
    }
}

impl AsTensorMut for TensorMut<'_> {
    fn view_mut(&mut self) -> TensorMut<'_> {
        TensorMut { shape: self.shape, data: self.data }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor").field("shape", &self.shape).finish_non_exhaustive()
    }
}

impl fmt::Debug for TensorRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorRef").field("shape", &self.shape).field("transposed", &self.transposed).finish()
    }
}

impl fmt::Debug for TensorMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorMut").field("shape", &self.shape).finish_non_exhaustive()
    }
}
