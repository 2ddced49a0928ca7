//! The tests that take every value as an independent draw: the two-sample
//! Kolmogorov–Smirnov test (the largest gap between two empirical
//! distribution functions, and its asymptotic p-value) and the
//! two-proportion z-test. The fidelity check's verdicts resample groups
//! instead ([`super::clustered`]); these give its distance, the limit its
//! p-values are checked against, and what ignoring groups costs.

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

/// The two-sided p-value of "same proportion" (pooled z-test), every
/// chance taken as independent: the test the fidelity check gave before
/// it resampled groups, kept to show what that costs (`clustered_tests`).
pub fn two_proportion_p((x1, n1): (f64, f64), (x2, n2): (f64, f64)) -> Option<f64> {
    if n1 <= 0.0 || n2 <= 0.0 {
        return None;
    }
    let pooled = (x1 + x2) / (n1 + n2);
    let variance = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2);
    if variance <= 0.0 {
        return Some(if (x1 / n1 - x2 / n2).abs() < 1e-12 {
            1.0
        } else {
            0.0
        });
    }
    let z = (x1 / n1 - x2 / n2).abs() / variance.sqrt();
    Some((2.0 * (1.0 - normal_cdf(z))).clamp(0.0, 1.0))
}

/// Φ(z), by Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
pub fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
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

    #[test]
    fn equal_shares_are_close_and_far_ones_differ() {
        assert!(two_proportion_p((50.0, 100.0), (50.0, 100.0)).unwrap() > 0.99);
        assert!(two_proportion_p((10.0, 100.0), (90.0, 100.0)).unwrap() < 1e-6);
        assert!((normal_cdf(1.96) - 0.975).abs() < 1e-4);
    }
}
