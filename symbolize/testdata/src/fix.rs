// Rust fixture: generics, traits, closures and nested modules, built with
// legacy and v0 symbol mangling.
pub mod shapes {
    pub trait Area {
        fn area(&self) -> f64;
    }
    pub struct Rect<T> {
        pub w: T,
        pub h: T,
    }
    impl Area for Rect<f64> {
        #[inline(never)]
        fn area(&self) -> f64 {
            self.w * self.h
        }
    }
    #[inline(never)]
    pub fn total<A: Area>(xs: &[A]) -> f64 {
        xs.iter().map(|x| x.area()).sum()
    }
}

#[inline(never)]
fn apply<F: Fn(u64) -> u64>(f: F, n: u64) -> u64 {
    (0..n).map(&f).fold(0, |a, b| a.wrapping_add(b))
}

fn main() {
    let n = std::env::args().count() as u64;
    let r = [shapes::Rect { w: 1.5, h: n as f64 }];
    let k = apply(|x| x * 3 + n, 10);
    println!("{} {}", shapes::total(&r), k);
}
