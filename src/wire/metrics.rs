//! Metrics read off the wire (placeholder, filled in next).
