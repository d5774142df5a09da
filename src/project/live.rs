//! Watching a project while the browser is open (filled in below).
