//! Bradley–Terry strengths by maximum likelihood, as Chatbot Arena's `compute_mle_elo` fits
//! them, and its Elo scale (pure: a matrix of wins in, strengths out).

/// Chatbot Arena's Elo scale: 400 per factor of 10 in the odds, 1000 at strength 0.
pub fn elo(strength: f64) -> f64 {
    400.0 * strength + 1000.0
}

/// The maximum-likelihood Bradley–Terry strengths: `wins[a][b]` the weight of a beating b,
/// P(a beats b) = 1 / (1 + 10^(s_b − s_a)), strengths summing to 0 (where lbfgs started at 0
/// leaves scikit-learn's unpenalized fit). Newton's method on the bordered system.
pub fn bradley_terry(wins: &[Vec<f64>], start: Option<&[f64]>) -> Vec<f64> {
    let k = wins.len();
    let ln10 = std::f64::consts::LN_10;
    let mut s: Vec<f64> = start.map_or_else(|| vec![0.0; k], <[f64]>::to_vec);
    for _ in 0..100 {
        let mut grad = vec![0.0; k];
        // The negative Hessian plus the all-ones matrix: positive definite on a connected design.
        // A small ridge keeps the step bounded where the design falls apart into groups that
        // never meet (their offsets are not identified); it changes the step, not the point
        // where the gradient vanishes.
        let mut h = vec![vec![1.0; k]; k];
        for (a, row) in h.iter_mut().enumerate() {
            row[a] += 1e-9;
        }
        for a in 0..k {
            for b in 0..k {
                let w = wins[a][b];
                if w == 0.0 || a == b {
                    continue;
                }
                let p = 1.0 / (1.0 + (-(ln10) * (s[a] - s[b])).exp());
                grad[a] += w * ln10 * (1.0 - p);
                grad[b] -= w * ln10 * (1.0 - p);
                let c = w * ln10 * ln10 * p * (1.0 - p);
                h[a][a] += c;
                h[b][b] += c;
                h[a][b] -= c;
                h[b][a] -= c;
            }
        }
        let Some(step) = solve(h, grad) else { break };
        let size = step.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for (x, d) in s.iter_mut().zip(&step) {
            *x += d;
        }
        if size < 1e-13 {
            break;
        }
    }
    let mean = s.iter().sum::<f64>() / k.max(1) as f64;
    s.iter().map(|x| x - mean).collect()
}

/// Gaussian elimination with partial pivoting; None when singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            if f != 0.0 {
                for c in col..n {
                    a[row][c] -= f * a[col][c];
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}
