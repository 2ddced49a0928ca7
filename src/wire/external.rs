//! External agents (placeholder, filled in next).
