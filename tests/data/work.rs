// work.rs - a Rust test program: its hot functions have mangled names, a
// plain function (work::count_words) and a trait method of a generic type
// (<work::Text<u8> as work::Tally>::tally), each of half the work.
#[inline(never)]
fn count_words(text: &[u8]) -> u64 {
    let mut n = 0;
    let mut inside = false;
    for &b in text {
        let space = b == b' ';
        if !space && !inside {
            n += 1;
        }
        inside = !space;
    }
    n
}

trait Tally {
    fn tally(&self) -> u64;
}

struct Text<T> {
    bytes: Vec<T>,
    from: usize,
}

impl Tally for Text<u8> {
    #[inline(never)]
    fn tally(&self) -> u64 {
        self.bytes[self.from..].iter().map(|&b| (b as u64) * 31 + 7).fold(0, |a, x| a.rotate_left(3) ^ x)
    }
}

fn main() {
    let rounds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let mut text = Vec::new();
    for i in 0..100000u64 {
        text.extend_from_slice(["alpha ", "beta ", "gamma ", "delta "][(i * 7 % 4) as usize].as_bytes());
    }
    let mut t = Text { bytes: text, from: 0 };
    let mut sum = 0;
    for r in 0..rounds {
        // a different start each round: no call can be hoisted out
        t.from = (r % 5) as usize;
        sum += count_words(&t.bytes[t.from..]);
        sum += t.tally();
    }
    println!("{}", sum & 1);
}
