//! The adapters wrap an environment of `minnow-envs` in a type of this
//! crate, so that they can implement `minnow-rl`'s traits; `wrap_env!`
//! writes the wrapper's [`Env`](minnow_envs::Env) by delegation, keeping
//! the wrapped environment's name (checkpoints name their task by it).

macro_rules! wrap_env {
    ($wrapper:ident, $inner:ty) => {
        impl minnow_envs::Env for $wrapper {
            const NAME: &'static str = <$inner as minnow_envs::Env>::NAME;

            fn observation_size(&self) -> usize {
                minnow_envs::Env::observation_size(&self.0)
            }

            fn action_count(&self) -> usize {
                minnow_envs::Env::action_count(&self.0)
            }

            fn reset(&mut self, seed: u64) {
                minnow_envs::Env::reset(&mut self.0, seed)
            }

            fn step(&mut self, action: usize) -> Result<minnow_envs::Step, minnow_envs::EnvError> {
                minnow_envs::Env::step(&mut self.0, action)
            }

            fn legal_mask(&self) -> u64 {
                minnow_envs::Env::legal_mask(&self.0)
            }

            fn observe(&self, out: &mut [f32]) {
                minnow_envs::Env::observe(&self.0, out)
            }

            fn is_over(&self) -> bool {
                minnow_envs::Env::is_over(&self.0)
            }
        }

        impl std::ops::Deref for $wrapper {
            type Target = $inner;

            fn deref(&self) -> &$inner {
                &self.0
            }
        }

        impl std::ops::DerefMut for $wrapper {
            fn deref_mut(&mut self) -> &mut $inner {
                &mut self.0
            }
        }

        impl From<$inner> for $wrapper {
            fn from(env: $inner) -> Self {
                Self(env)
            }
        }
    };
}

pub(crate) use wrap_env;
