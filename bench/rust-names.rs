// rust-names.rs - the program of bench/rust-names.sh: std's generic code
// (HashMap's entry, SipHash, String) and a closure of its own are hot, so
// that a profile holds Rust's long names (impl blocks, trait methods of
// generic types, closures), in the legacy scheme or v0.
use std::collections::HashMap;

#[inline(never)]
fn count_words(text: &str, counts: &mut HashMap<String, u64>) {
    for w in text.split_whitespace() {
        *counts.entry(w.to_string()).or_insert(0) += 1;
    }
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(300);
    let mut text = String::new();
    for i in 0..20000u64 {
        text.push_str(["alpha", "beta", "gamma", "delta"][(i * 7 % 4) as usize]);
        text.push(' ');
    }
    let mut counts = HashMap::new();
    let lens: Vec<usize> = (0..rounds)
        .map(|r| {
            count_words(&text[r % 3..], &mut counts);
            counts.len()
        })
        .collect();
    println!("{}", lens.iter().sum::<usize>());
}
