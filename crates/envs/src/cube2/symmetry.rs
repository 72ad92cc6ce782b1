//! The cube's 48 symmetries (24 rotations, each with or without a mirror)
//! as views of a position. A view turns and maybe mirrors the whole cube,
//! renames the colours so that solved stays solved, then turns the cube
//! again so the D-B-L cubie is back at the fixed reference corner. The
//! view is a position exactly as far from solved, and every move has a
//! counterpart in it, so a learner may judge a position by any view.

use super::state::{CORNER_STICKERS, MOVE_COUNT, OBSERVATION_SIZE};
use crate::EnvError;
use std::sync::OnceLock;

/// How many symmetries there are ([`CubeSymmetry::all`]; the first is the identity).
pub const SYMMETRY_COUNT: usize = 48;

/// Face normals in face order U R F D L B, as (x, y, z) with R = +x,
/// U = +y and F = +z.
const NORMALS: [[i8; 3]; 6] = [[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, -1, 0], [-1, 0, 0], [0, 0, -1]];
const D: usize = 3;
/// The reference corner's position and its colours.
const DBL: usize = 7;
const DBL_COLOURS: u8 = 1 << 3 | 1 << 4 | 1 << 5;

/// `v -> (sign[i] * v[axis[i]])_i`: a rotation or, with determinant -1, a reflection.
#[derive(Clone, Copy)]
struct Orthogonal {
    axis: [usize; 3],
    sign: [i8; 3],
}

impl Orthogonal {
    /// All 48, the identity first.
    fn all() -> Vec<Orthogonal> {
        let axes = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        let mut all = Vec::new();
        for axis in axes {
            for flips in 0..8 {
                let sign = std::array::from_fn(|i| if flips >> i & 1 == 1 { -1 } else { 1 });
                all.push(Orthogonal { axis, sign });
            }
        }
        all
    }

    fn apply(&self, v: [i8; 3]) -> [i8; 3] {
        std::array::from_fn(|i| self.sign[i] * v[self.axis[i]])
    }

    fn mirrors(&self) -> bool {
        let even = [[0, 1, 2], [1, 2, 0], [2, 0, 1]].contains(&self.axis);
        let sign: i8 = self.sign.iter().product();
        (sign == 1) != even
    }

    /// Where each face goes.
    fn faces(&self) -> [usize; 6] {
        std::array::from_fn(|f| NORMALS.iter().position(|&n| n == self.apply(NORMALS[f])).expect("faces to faces"))
    }

    /// Where each sticker goes.
    fn stickers(&self) -> [usize; 24] {
        let corner_at = |position: &[u8; 3]| -> [i8; 3] {
            let mut c = [0; 3];
            for &sticker in position {
                (0..3).for_each(|i| c[i] += NORMALS[sticker as usize / 4][i]);
            }
            c
        };
        let faces = self.faces();
        let mut stickers = [0; 24];
        for position in &CORNER_STICKERS {
            let image = CORNER_STICKERS
                .iter()
                .find(|p| corner_at(p) == self.apply(corner_at(position)))
                .expect("corners to corners");
            for &sticker in position {
                let face = faces[sticker as usize / 4];
                stickers[sticker as usize] =
                    *image.iter().find(|&&s| s as usize / 4 == face).expect("that face") as usize;
            }
        }
        stickers
    }

    /// One-hot entry `6 * sticker + colour` goes to entry `table[..]`;
    /// with `recolour` the colours follow the faces.
    fn entries(&self, recolour: bool) -> [u8; OBSERVATION_SIZE] {
        let (stickers, faces) = (self.stickers(), self.faces());
        std::array::from_fn(|i| {
            let colour = if recolour { faces[i % 6] } else { i % 6 };
            (6 * stickers[i / 6] + colour) as u8
        })
    }
}

/// A rotation of the whole cube that brings the D-B-L cubie home.
struct Reorientation {
    entries: [u8; OBSERVATION_SIZE],
    faces: [usize; 6],
}

/// Indexed by the position holding the D-B-L cubie and the face its D
/// sticker shows: the rotation taking it home (24 of the 48 exist).
fn reorientations() -> &'static [[Option<Reorientation>; 6]; 8] {
    static TABLE: OnceLock<[[Option<Reorientation>; 6]; 8]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: [[Option<Reorientation>; 6]; 8] = Default::default();
        for rotation in Orthogonal::all().into_iter().filter(|o| !o.mirrors()) {
            let (stickers, faces) = (rotation.stickers(), rotation.faces());
            // The sticker whose image is DBL's D sticker.
            let home = CORNER_STICKERS[DBL].iter().find(|&&s| s as usize / 4 == D).expect("DBL has a D sticker");
            let from = stickers.iter().position(|&s| s == *home as usize).expect("a permutation");
            let position = CORNER_STICKERS.iter().position(|p| p.contains(&(from as u8))).expect("a corner sticker");
            table[position][from / 4] = Some(Reorientation { entries: rotation.entries(false), faces });
        }
        table
    })
}

/// One symmetry of the cube (see the module docs).
#[derive(Debug)]
pub struct CubeSymmetry {
    /// Entry `i` of a position goes to entry `entries[i]`, colours renamed.
    entries: [u8; OBSERVATION_SIZE],
    faces: [usize; 6],
    mirrors: bool,
}

impl CubeSymmetry {
    /// All [`SYMMETRY_COUNT`], the identity first.
    pub fn all() -> &'static [CubeSymmetry] {
        static ALL: OnceLock<Vec<CubeSymmetry>> = OnceLock::new();
        ALL.get_or_init(|| {
            Orthogonal::all()
                .iter()
                .map(|o| CubeSymmetry { entries: o.entries(true), faces: o.faces(), mirrors: o.mirrors() })
                .collect()
        })
    }

    /// Writes this symmetry's view of the position `obs` shows into `out`
    /// (both [`OBSERVATION_SIZE`] long) and, into `moves[m]` (of
    /// [`MOVE_COUNT`]), the view's move that does what move `m` does in the
    /// original. An error if `obs` is not a one-hot position.
    pub fn view(&self, obs: &[f32], out: &mut [f32], moves: &mut [usize]) -> Result<(), EnvError> {
        let bad = |problem| Err(EnvError::InvalidPosition { game: "cube2", problem });
        if obs.len() != OBSERVATION_SIZE || out.len() != OBSERVATION_SIZE || moves.len() != MOVE_COUNT {
            return bad("a view needs 144 values in and out and 6 moves");
        }
        let mut turned = [0.0; OBSERVATION_SIZE];
        for (&v, &to) in obs.iter().zip(&self.entries) {
            turned[to as usize] = v;
        }
        let colour = |sticker: u8| turned[6 * sticker as usize..][..6].iter().position(|&v| v == 1.0);
        let Some((position, d_face)) = CORNER_STICKERS.iter().enumerate().find_map(|(p, stickers)| {
            let colours = [colour(stickers[0])?, colour(stickers[1])?, colour(stickers[2])?];
            let set = colours.iter().fold(0u8, |set, &c| set | 1 << c);
            let d = stickers[colours.iter().position(|&c| c == D)?];
            (set == DBL_COLOURS).then_some((p, d as usize / 4))
        }) else {
            return bad("no corner shows the D-B-L cubie");
        };
        let home = reorientations()[position][d_face].as_ref().expect("every corner and twist has a rotation");
        for (&v, &to) in turned.iter().zip(&home.entries) {
            out[to as usize] = v;
        }
        for (m, view_move) in moves.iter_mut().enumerate() {
            // A clockwise turn of a face at the reference corner is, up to
            // turning the whole cube, the opposite face's clockwise turn
            // (each seen from outside its own face).
            let face = home.faces[self.faces[m / 2]];
            let reverse = (m % 2 == 1) ^ self.mirrors;
            *view_move = 2 * (face % 3) + reverse as usize;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube2::CubeState;
    use rand::SeedableRng;

    fn view(symmetry: &CubeSymmetry, state: CubeState) -> (CubeState, [usize; MOVE_COUNT]) {
        let (mut obs, mut out, mut moves) = ([0.0; OBSERVATION_SIZE], [0.0; OBSERVATION_SIZE], [0; MOVE_COUNT]);
        state.write_one_hot(&mut obs);
        symmetry.view(&obs, &mut out, &mut moves).unwrap();
        (CubeState::from_one_hot(&out).expect("a view is a reachable position"), moves)
    }

    /// Views of positions are positions, solved stays solved, and moving
    /// then viewing equals viewing then making the view's move.
    #[test]
    fn views_commute_with_moves() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(6);
        assert_eq!(CubeSymmetry::all().len(), SYMMETRY_COUNT);
        for symmetry in CubeSymmetry::all() {
            assert_eq!(view(symmetry, CubeState::SOLVED).0, CubeState::SOLVED);
            for _ in 0..100 {
                let state = CubeState::scrambled(12, &mut rng);
                let (seen, moves) = view(symmetry, state);
                let mut sorted = moves;
                sorted.sort();
                assert_eq!(sorted, [0, 1, 2, 3, 4, 5], "moves map one to one");
                for m in 0..MOVE_COUNT {
                    assert_eq!(view(symmetry, state.apply(m)).0, seen.apply(moves[m]));
                }
            }
        }
    }

    /// The identity first, 48 different views of a generic position, and
    /// exactly the mirrors turn a clockwise move into an anticlockwise one.
    #[test]
    fn forty_eight_distinct_views() {
        let state = CubeState::scrambled(11, &mut rand_pcg::Pcg64Mcg::seed_from_u64(1));
        let views: Vec<_> = CubeSymmetry::all().iter().map(|s| view(s, state)).collect();
        assert_eq!(views[0], (state, [0, 1, 2, 3, 4, 5]));
        for (k, (seen, moves)) in views.iter().enumerate() {
            assert!(views[..k].iter().all(|(other, _)| other != seen), "view {k} repeats");
            let reversed = (0..MOVE_COUNT).all(|m| moves[m] % 2 != m % 2);
            assert_eq!(reversed, CubeSymmetry::all()[k].mirrors, "view {k}");
        }
        let mut moves = [0; MOVE_COUNT];
        assert!(CubeSymmetry::all()[1].view(&[0.0; 144], &mut [0.0; 144], &mut moves).is_err());
    }
}
