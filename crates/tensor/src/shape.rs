use crate::TensorError;
use std::fmt;

/// The highest rank a [`Shape`] holds.
pub const MAX_RANK: usize = 6;

/// Dimensions of a row-major tensor, rank 0 (a scalar) to [`MAX_RANK`].
/// Stored inline, so shapes are `Copy` and never allocate.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    dims: [usize; MAX_RANK],
    rank: u8,
}

impl Shape {
    /// A shape with these dimensions; an error for rank above [`MAX_RANK`]
    /// or an element count that overflows `usize`.
    pub fn new(dims: &[usize]) -> Result<Self, TensorError> {
        if dims.len() > MAX_RANK {
            let mut prefix = [0; MAX_RANK];
            prefix.copy_from_slice(&dims[..MAX_RANK]);
            return Err(TensorError::RankTooHigh { rank: dims.len(), dims_prefix: prefix });
        }
        let mut stored = [0; MAX_RANK];
        stored[..dims.len()].copy_from_slice(dims);
        let shape = Self { dims: stored, rank: dims.len() as u8 };
        let numel: u128 = dims.iter().map(|&d| d as u128).product();
        if numel > isize::MAX as u128 / 4 {
            return Err(TensorError::TooLarge { op: "Shape::new", shape, numel });
        }
        Ok(shape)
    }

    /// A rank-0 shape holding one element.
    pub const fn scalar() -> Self {
        Self { dims: [0; MAX_RANK], rank: 0 }
    }

    /// `[n]`
    pub const fn vector(n: usize) -> Self {
        Self { dims: [n, 0, 0, 0, 0, 0], rank: 1 }
    }

    /// `[rows, cols]`
    pub const fn matrix(rows: usize, cols: usize) -> Self {
        Self { dims: [rows, cols, 0, 0, 0, 0], rank: 2 }
    }

    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank as usize]
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// Number of elements (1 for a scalar).
    pub fn numel(&self) -> usize {
        self.dims().iter().product()
    }

    /// The last dimension (1 for a scalar): the row length of the
    /// row-major layout.
    pub fn last(&self) -> usize {
        self.dims().last().copied().unwrap_or(1)
    }

    /// Elements in all but the last dimension: the number of rows.
    pub fn rows(&self) -> usize {
        match self.rank {
            0 => 1,
            _ => self.dims()[..self.rank() - 1].iter().product(),
        }
    }

    /// Rows and columns of a rank-2 shape.
    pub fn as_matrix(&self, op: &'static str) -> Result<(usize, usize), TensorError> {
        match self.dims() {
            &[r, c] => Ok((r, c)),
            _ => Err(TensorError::Rank { op, expected: 2, found: *self }),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[")?;
        for (i, d) in self.dims().iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{d}")?;
        }
        write!(f, "]")
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        let s = Shape::new(&[2, 3, 4]).unwrap();
        assert_eq!((s.rank(), s.numel(), s.rows(), s.last()), (3, 24, 6, 4));
        assert_eq!(s.to_string(), "[2, 3, 4]");
        assert_eq!(Shape::scalar().numel(), 1);
        assert_eq!(Shape::matrix(2, 5), Shape::new(&[2, 5]).unwrap());
    }

    #[test]
    fn rank_seven_is_an_error() {
        let err = Shape::new(&[1; 7]).unwrap_err();
        assert!(err.to_string().contains("rank 7"), "{err}");
    }

    #[test]
    fn overflowing_shape_is_an_error() {
        assert!(matches!(Shape::new(&[usize::MAX, 2]), Err(TensorError::TooLarge { .. })));
    }
}
