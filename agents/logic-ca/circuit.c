/* minnow-logic hard circuit: 36 gates, Zero boundary.
 * logic_ca_step: one synchronous step of a grid of 8 channels, height rows and
 * width <= 64 columns: src and dst hold one plane per channel of height words,
 * bit j of word r being cell (r, j). */
#include <stdint.h>

static inline uint64_t logic_ca_tap(const uint64_t *plane, int height, int width, int r, int dr, int dc) {
    const uint64_t mask = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    int rr = r + dr;
    if (rr < 0 || rr >= height) return 0;
    const uint64_t row = plane[rr];
    if (dc < 0) return (row << 1) & mask;
    if (dc > 0) return row >> 1;
    return row;
}

void logic_ca_step(const uint64_t *src, uint64_t *dst, int height, int width) {
    const uint64_t mask = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    (void)mask;
    for (int r = 0; r < height; r++) {
        const uint64_t s0 = logic_ca_tap(src + 0 * height, height, width, r, 0, -1);
        const uint64_t s1 = logic_ca_tap(src + 0 * height, height, width, r, 0, 0);
        const uint64_t s2 = logic_ca_tap(src + 1 * height, height, width, r, -1, -1);
        const uint64_t s3 = logic_ca_tap(src + 1 * height, height, width, r, -1, 0);
        const uint64_t s4 = logic_ca_tap(src + 1 * height, height, width, r, 0, -1);
        const uint64_t s5 = logic_ca_tap(src + 2 * height, height, width, r, -1, -1);
        const uint64_t s6 = logic_ca_tap(src + 2 * height, height, width, r, -1, 0);
        const uint64_t s7 = logic_ca_tap(src + 2 * height, height, width, r, 0, 0);
        const uint64_t s8 = logic_ca_tap(src + 2 * height, height, width, r, 1, 1);
        const uint64_t s9 = logic_ca_tap(src + 3 * height, height, width, r, -1, -1);
        const uint64_t s10 = logic_ca_tap(src + 3 * height, height, width, r, -1, 1);
        const uint64_t s11 = logic_ca_tap(src + 4 * height, height, width, r, -1, -1);
        const uint64_t s12 = logic_ca_tap(src + 4 * height, height, width, r, -1, 0);
        const uint64_t s13 = logic_ca_tap(src + 4 * height, height, width, r, 0, -1);
        const uint64_t s14 = logic_ca_tap(src + 4 * height, height, width, r, 0, 0);
        const uint64_t s15 = logic_ca_tap(src + 4 * height, height, width, r, 0, 1);
        const uint64_t s16 = logic_ca_tap(src + 5 * height, height, width, r, -1, -1);
        const uint64_t s17 = logic_ca_tap(src + 5 * height, height, width, r, -1, 0);
        const uint64_t s18 = logic_ca_tap(src + 5 * height, height, width, r, -1, 1);
        const uint64_t s19 = logic_ca_tap(src + 5 * height, height, width, r, 0, -1);
        const uint64_t s20 = logic_ca_tap(src + 5 * height, height, width, r, 0, 0);
        const uint64_t s21 = logic_ca_tap(src + 5 * height, height, width, r, 0, 1);
        const uint64_t s22 = logic_ca_tap(src + 5 * height, height, width, r, 1, -1);
        const uint64_t s23 = logic_ca_tap(src + 5 * height, height, width, r, 1, 0);
        const uint64_t s24 = logic_ca_tap(src + 6 * height, height, width, r, -1, -1);
        const uint64_t s25 = logic_ca_tap(src + 6 * height, height, width, r, -1, 0);
        const uint64_t s26 = logic_ca_tap(src + 6 * height, height, width, r, 0, -1);
        const uint64_t s27 = logic_ca_tap(src + 6 * height, height, width, r, 0, 0);
        const uint64_t s28 = logic_ca_tap(src + 6 * height, height, width, r, 1, 1);
        const uint64_t s29 = logic_ca_tap(src + 7 * height, height, width, r, 0, -1);
        const uint64_t s30 = s0 & s1;
        const uint64_t s31 = s6 & s7;
        const uint64_t s32 = s12 | s14;
        const uint64_t s33 = s17 | s20;
        const uint64_t s34 = s19 | s20;
        const uint64_t s35 = ~s20 & s23;
        const uint64_t s36 = s25 | s27;
        const uint64_t s37 = s8 & ~s31;
        const uint64_t s38 = s11 & ~s15;
        const uint64_t s39 = s16 & ~s21;
        const uint64_t s40 = ~s18 & s34;
        const uint64_t s41 = s22 & ~s35;
        const uint64_t s42 = s28 | s36;
        const uint64_t s43 = ~s26 & s42;
        const uint64_t s44 = s16 | s39;
        const uint64_t s45 = s16 | s41;
        const uint64_t s46 = s13 | s32;
        const uint64_t s47 = ~s5 & s46;
        const uint64_t s48 = s2 & s30;
        const uint64_t s49 = s6 & s48;
        const uint64_t s50 = s4 | s24;
        const uint64_t s51 = ~s33 & s43;
        const uint64_t s52 = s44 & ~s47;
        const uint64_t s53 = s2 & ~s3;
        const uint64_t s54 = ~s38 & s50;
        const uint64_t s55 = s10 ^ s29;
        const uint64_t s56 = s37 | s52;
        const uint64_t s57 = s5 | s40;
        const uint64_t s58 = s9 & ~s51;
        const uint64_t s59 = s11 & ~s58;
        const uint64_t s60 = s53 | s54;
        const uint64_t s61 = s5 | s49;
        const uint64_t s62 = s16 ^ s57;
        const uint64_t s63 = s55 & ~s59;
        const uint64_t s64 = s22 | s45;
        const uint64_t s65 = s16 | s62;
        dst[0 * height + r] = ~s56 & mask;
        dst[1 * height + r] = ~s64 & mask;
        dst[2 * height + r] = s63 & mask;
        dst[3 * height + r] = ~s61 & mask;
        dst[4 * height + r] = s65 & mask;
        dst[5 * height + r] = s60 & mask;
        dst[6 * height + r] = ~s64 & mask;
        dst[7 * height + r] = 0;
    }
}
