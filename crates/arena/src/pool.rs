use crate::aligned::AlignedBuf;

/// Persistent buffers handed back and reused, so rebuilding a model or a
/// replay buffer of the same shape allocates nothing.
#[derive(Debug, Default)]
pub struct Pool {
    free: Vec<AlignedBuf>,
}

impl Pool {
    pub fn new() -> Self {
        Self::default()
    }

    /// A zeroed buffer of `len` floats: a returned one of that length if there
    /// is one, else a fresh allocation.
    pub fn take(&mut self, len: usize) -> AlignedBuf {
        match self.free.iter().position(|b| b.len() == len) {
            Some(i) => {
                let mut buf = self.free.swap_remove(i);
                buf.fill(0.0);
                buf
            }
            None => AlignedBuf::zeros(len),
        }
    }

    /// Returns a buffer for later reuse.
    pub fn give(&mut self, buf: AlignedBuf) {
        self.free.push(buf);
    }

    /// Buffers waiting to be reused.
    pub fn idle(&self) -> usize {
        self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_the_same_memory() {
        let mut pool = Pool::new();
        let mut buf = pool.take(100);
        buf[3] = 7.0;
        let ptr = buf.as_ptr();
        pool.give(buf);
        let again = pool.take(100);
        assert_eq!(again.as_ptr(), ptr);
        assert!(again.iter().all(|&x| x == 0.0), "reused buffers come back zeroed");
        assert_eq!(pool.take(50).len(), 50);
    }
}
