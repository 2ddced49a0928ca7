//! The two-sample Kolmogorov–Smirnov test: the largest gap between two
//! empirical distribution functions, and its asymptotic p-value.

/// The KS distance of samples `a` and `b` and the p-value of "same
/// distribution" (`None` when either is empty).
pub fn two_sample(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut distance) = (0usize, 0usize, 0.0f64);
    while let (Some(&next_a), Some(&next_b)) = (a.get(i), b.get(j)) {
        let x = next_a.min(next_b);
        while a.get(i).is_some_and(|&v| v <= x) {
            i += 1;
        }
        while b.get(j).is_some_and(|&v| v <= x) {
            j += 1;
        }
        let gap = (i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs();
        distance = distance.max(gap);
    }
    let n = (a.len() * b.len()) as f64 / (a.len() + b.len()) as f64;
    let root = n.sqrt();
    Some((
        distance,
        kolmogorov_q((root + 0.12 + 0.11 / root) * distance),
    ))
}

/// `Q(λ) = 2 Σ (-1)^(j-1) exp(-2 j² λ²)`, the Kolmogorov tail.
fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 1e-3 {
        return 1.0;
    }
    let mut sum = 0.0;
    let mut sign = 1.0;
    for j in 1..=100 {
        let term = sign * (-2.0 * f64::from(j * j) * lambda * lambda).exp();
        sum += term;
        if term.abs() < 1e-10 {
            break;
        }
        sign = -sign;
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_samples_do_not_differ() {
        let a: Vec<f64> = (0..50).map(f64::from).collect();
        let (d, p) = two_sample(&a, &a).unwrap();
        assert_eq!(d, 0.0);
        assert!(p > 0.99);
    }

    #[test]
    fn shifted_samples_differ() {
        let a: Vec<f64> = (0..100).map(f64::from).collect();
        let b: Vec<f64> = (60..160).map(f64::from).collect();
        let (d, p) = two_sample(&a, &b).unwrap();
        assert!((d - 0.6).abs() < 1e-9, "{d}");
        assert!(p < 1e-6, "{p}");
    }

    #[test]
    fn a_known_p_value() {
        // D = 0.5 with n = m = 10: the asymptotic p is about 0.15.
        let a: Vec<f64> = (0..10).map(f64::from).collect();
        let b: Vec<f64> = (5..15).map(f64::from).collect();
        let (d, p) = two_sample(&a, &b).unwrap();
        assert!((d - 0.5).abs() < 1e-9);
        assert!((0.1..0.2).contains(&p), "{p}");
    }
}
