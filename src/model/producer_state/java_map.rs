//! The iteration order of a `java.util.HashMap<Long, V>` that only ever receives `put`s, as
//! OpenJDK 8–21 implement it: `hash = Long.hashCode(k) ^ (h >>> 16)`, bucket `hash &
//! (capacity - 1)`, capacity 16 at the first put and doubled whenever the size exceeds 3/4 of it
//! (never shrunk), a new key appended to its bucket's list, a resize splitting each bucket into
//! its low and high halves in order, and a bucket of more than 8 keys turned into a red-black
//! tree (`TreeNode`) once the capacity is at least 64 (below that the table is resized
//! instead). A tree bucket iterates its `next` links: the tree's root first
//! (`moveRootToFront`), a new key right after its tree parent (`putTreeVal`); a resize that
//! leaves 6 keys or fewer in a half turns it back into a list (`untreeify`).
//!
//! `ProducerStateManager.producers` is such a map (keys: producer ids); its snapshot lists
//! the producers in this order.

use std::collections::HashSet;

const INITIAL_CAPACITY: usize = 16;
const TREEIFY_THRESHOLD: usize = 8;
const UNTREEIFY_THRESHOLD: usize = 6;
const MIN_TREEIFY_CAPACITY: usize = 64;

#[derive(Debug, Clone, Copy, Default)]
struct Node {
    key: i64,
    hash: i32,
    next: Option<usize>,
    prev: Option<usize>,
    parent: Option<usize>,
    left: Option<usize>,
    right: Option<usize>,
    red: bool,
    tree: bool,
}

/// `HashMap.hash(Long)`.
pub fn java_hash(key: i64) -> i32 {
    // Long.hashCode: the two halves xor-ed (the truncations are the Java semantics).
    #[allow(clippy::cast_possible_truncation)]
    let h = (key ^ ((key as u64) >> 32) as i64) as i32;
    h ^ ((h as u32) >> 16) as i32
}

/// The keys of a put-only `java.util.HashMap<Long, _>`, in its iteration order.
#[derive(Debug, Clone, Default)]
pub struct JavaHashOrder {
    nodes: Vec<Node>,
    table: Vec<Option<usize>>,
    keys: HashSet<i64>,
}

impl PartialEq for JavaHashOrder {
    fn eq(&self, other: &Self) -> bool {
        self.keys() == other.keys()
    }
}

impl Eq for JavaHashOrder {}

/// `(hash, key)` order of the tree bins (`Long` is `Comparable`, so no tie-break is needed).
fn goes_left(h: i32, k: i64, p: &Node) -> bool {
    if p.hash != h {
        return p.hash > h;
    }
    k <= p.key
}

impl JavaHashOrder {
    /// The number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The table length (0 before the first put).
    pub fn capacity(&self) -> usize {
        self.table.len()
    }

    /// Whether `key` was put.
    pub fn contains(&self, key: i64) -> bool {
        self.keys.contains(&key)
    }

    fn node(&self, i: usize) -> Node {
        self.nodes.get(i).copied().unwrap_or_default()
    }

    fn edit(&mut self, i: usize, f: impl FnOnce(&mut Node)) {
        if let Some(n) = self.nodes.get_mut(i) {
            f(n);
        }
    }

    fn head(&self, bucket: usize) -> Option<usize> {
        self.table.get(bucket).copied().flatten()
    }

    fn set_head(&mut self, bucket: usize, node: Option<usize>) {
        if let Some(slot) = self.table.get_mut(bucket) {
            *slot = node;
        }
    }

    fn bucket_of(&self, hash: i32) -> usize {
        (hash as u32 as usize) & self.table.len().saturating_sub(1)
    }

    /// `HashMap.put(key, _)`: a key already present keeps its place.
    pub fn put(&mut self, key: i64) {
        if !self.keys.insert(key) {
            return;
        }
        if self.table.is_empty() {
            self.resize();
        }
        let hash = java_hash(key);
        let id = self.nodes.len();
        self.nodes.push(Node {
            key,
            hash,
            ..Node::default()
        });
        let bucket = self.bucket_of(hash);
        match self.head(bucket) {
            None => self.set_head(bucket, Some(id)),
            Some(root) if self.node(root).tree => self.put_tree_val(root, id),
            Some(first) => {
                let mut p = first;
                let mut bin_count = 0;
                while let Some(next) = self.node(p).next {
                    p = next;
                    bin_count += 1;
                }
                self.edit(p, |n| n.next = Some(id));
                if bin_count >= TREEIFY_THRESHOLD - 1 {
                    self.treeify_bin(hash);
                }
            }
        }
        if self.keys.len() > self.table.len() / 4 * 3 {
            self.resize();
        }
    }

    /// The keys in iteration order.
    pub fn keys(&self) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.keys.len());
        for head in &self.table {
            let mut p = *head;
            while let Some(i) = p {
                let n = self.node(i);
                out.push(n.key);
                p = n.next;
            }
        }
        out
    }

    fn resize(&mut self) {
        let old = std::mem::take(&mut self.table);
        let old_cap = old.len();
        let new_cap = if old_cap == 0 {
            INITIAL_CAPACITY
        } else {
            old_cap.saturating_mul(2)
        };
        self.table = vec![None; new_cap];
        for (j, head) in old.into_iter().enumerate() {
            let Some(e) = head else { continue };
            let first = self.node(e);
            if first.next.is_none() {
                let b = self.bucket_of(first.hash);
                self.set_head(b, Some(e));
            } else if first.tree {
                self.split(e, j, old_cap);
            } else {
                let (lo, hi) = self.split_list(e, old_cap);
                self.set_head(j, lo.0);
                self.set_head(j + old_cap, hi.0);
            }
        }
    }

    /// Splits the list from `e` by `hash & bit`, in order: ((head, count), (head, count)).
    fn split_list(
        &mut self,
        e: usize,
        bit: usize,
    ) -> ((Option<usize>, usize), (Option<usize>, usize)) {
        let mut lo: (Option<usize>, Option<usize>, usize) = (None, None, 0);
        let mut hi: (Option<usize>, Option<usize>, usize) = (None, None, 0);
        let mut p = Some(e);
        while let Some(i) = p {
            let n = self.node(i);
            p = n.next;
            self.edit(i, |n| n.next = None);
            let side = if (n.hash as u32 as usize) & bit == 0 {
                &mut lo
            } else {
                &mut hi
            };
            let tail = side.1;
            match tail {
                None => side.0 = Some(i),
                Some(t) => {
                    if let Some(tn) = self.nodes.get_mut(t) {
                        tn.next = Some(i);
                    }
                }
            }
            if let Some(n) = self.nodes.get_mut(i) {
                n.prev = tail;
            }
            side.1 = Some(i);
            side.2 += 1;
        }
        ((lo.0, lo.2), (hi.0, hi.2))
    }

    /// `TreeNode.split`.
    fn split(&mut self, e: usize, index: usize, bit: usize) {
        let ((lo, lc), (hi, hc)) = self.split_list(e, bit);
        if let Some(l) = lo {
            self.set_head(index, Some(l));
            if lc <= UNTREEIFY_THRESHOLD {
                self.untreeify(l);
            } else if hi.is_some() {
                self.treeify(l);
            }
        }
        if let Some(h) = hi {
            self.set_head(index + bit, Some(h));
            if hc <= UNTREEIFY_THRESHOLD {
                self.untreeify(h);
            } else if lo.is_some() {
                self.treeify(h);
            }
        }
    }

    fn untreeify(&mut self, head: usize) {
        let mut p = Some(head);
        while let Some(i) = p {
            self.edit(i, |n| {
                n.tree = false;
                n.parent = None;
                n.left = None;
                n.right = None;
                n.prev = None;
            });
            p = self.node(i).next;
        }
    }

    /// `HashMap.treeifyBin`.
    fn treeify_bin(&mut self, hash: i32) {
        if self.table.len() < MIN_TREEIFY_CAPACITY {
            self.resize();
            return;
        }
        let bucket = self.bucket_of(hash);
        let Some(head) = self.head(bucket) else {
            return;
        };
        let mut prev = None;
        let mut p = Some(head);
        while let Some(i) = p {
            self.edit(i, |n| {
                n.tree = true;
                n.prev = prev;
            });
            prev = Some(i);
            p = self.node(i).next;
        }
        self.treeify(head);
    }

    /// `TreeNode.treeify`: the list from `head`, in order, into a red-black tree.
    fn treeify(&mut self, head: usize) {
        let mut root: Option<usize> = None;
        let mut x = Some(head);
        while let Some(xi) = x {
            let xn = self.node(xi);
            x = xn.next;
            self.edit(xi, |n| {
                n.left = None;
                n.right = None;
            });
            let Some(r) = root else {
                self.edit(xi, |n| {
                    n.parent = None;
                    n.red = false;
                });
                root = Some(xi);
                continue;
            };
            let mut p = r;
            loop {
                let pn = self.node(p);
                let left = goes_left(xn.hash, xn.key, &pn);
                let child = if left { pn.left } else { pn.right };
                match child {
                    Some(c) => p = c,
                    None => {
                        self.edit(xi, |n| n.parent = Some(p));
                        self.edit(p, |n| {
                            if left {
                                n.left = Some(xi);
                            } else {
                                n.right = Some(xi);
                            }
                        });
                        root = Some(self.balance_insertion(r, xi));
                        break;
                    }
                }
            }
        }
        if let Some(r) = root {
            self.move_root_to_front(r);
        }
    }

    /// `TreeNode.putTreeVal` for a new key (node `x`) into the tree rooted at `root`.
    fn put_tree_val(&mut self, root: usize, x: usize) {
        let xn = self.node(x);
        let mut p = root;
        loop {
            let pn = self.node(p);
            let left = goes_left(xn.hash, xn.key, &pn);
            let child = if left { pn.left } else { pn.right };
            if let Some(c) = child {
                p = c;
                continue;
            }
            let xpn = pn.next;
            self.edit(x, |n| {
                n.tree = true;
                n.next = xpn;
                n.parent = Some(p);
                n.prev = Some(p);
            });
            self.edit(p, |n| {
                if left {
                    n.left = Some(x);
                } else {
                    n.right = Some(x);
                }
                n.next = Some(x);
            });
            if let Some(after) = xpn {
                self.edit(after, |n| n.prev = Some(x));
            }
            let r = self.balance_insertion(root, x);
            self.move_root_to_front(r);
            return;
        }
    }

    fn move_root_to_front(&mut self, root: usize) {
        let rn = self.node(root);
        let bucket = self.bucket_of(rn.hash);
        let first = self.head(bucket);
        if first == Some(root) {
            return;
        }
        self.set_head(bucket, Some(root));
        if let Some(next) = rn.next {
            self.edit(next, |n| n.prev = rn.prev);
        }
        if let Some(prev) = rn.prev {
            self.edit(prev, |n| n.next = rn.next);
        }
        if let Some(f) = first {
            self.edit(f, |n| n.prev = Some(root));
        }
        self.edit(root, |n| {
            n.next = first;
            n.prev = None;
        });
    }

    fn rotate_left(&mut self, mut root: usize, p: usize) -> usize {
        let Some(r) = self.node(p).right else {
            return root;
        };
        let rl = self.node(r).left;
        self.edit(p, |n| n.right = rl);
        if let Some(rl) = rl {
            self.edit(rl, |n| n.parent = Some(p));
        }
        let pp = self.node(p).parent;
        self.edit(r, |n| n.parent = pp);
        match pp {
            None => {
                root = r;
                self.edit(r, |n| n.red = false);
            }
            Some(pp) if self.node(pp).left == Some(p) => self.edit(pp, |n| n.left = Some(r)),
            Some(pp) => self.edit(pp, |n| n.right = Some(r)),
        }
        self.edit(r, |n| n.left = Some(p));
        self.edit(p, |n| n.parent = Some(r));
        root
    }

    fn rotate_right(&mut self, mut root: usize, p: usize) -> usize {
        let Some(l) = self.node(p).left else {
            return root;
        };
        let lr = self.node(l).right;
        self.edit(p, |n| n.left = lr);
        if let Some(lr) = lr {
            self.edit(lr, |n| n.parent = Some(p));
        }
        let pp = self.node(p).parent;
        self.edit(l, |n| n.parent = pp);
        match pp {
            None => {
                root = l;
                self.edit(l, |n| n.red = false);
            }
            Some(pp) if self.node(pp).right == Some(p) => self.edit(pp, |n| n.right = Some(l)),
            Some(pp) => self.edit(pp, |n| n.left = Some(l)),
        }
        self.edit(l, |n| n.right = Some(p));
        self.edit(p, |n| n.parent = Some(l));
        root
    }

    fn red(&self, i: Option<usize>) -> bool {
        i.is_some_and(|i| self.node(i).red)
    }

    /// `TreeNode.balanceInsertion`: returns the new root.
    fn balance_insertion(&mut self, mut root: usize, mut x: usize) -> usize {
        self.edit(x, |n| n.red = true);
        loop {
            let Some(mut xp) = self.node(x).parent else {
                self.edit(x, |n| n.red = false);
                return x;
            };
            if !self.node(xp).red {
                return root;
            }
            let Some(mut xpp) = self.node(xp).parent else {
                return root;
            };
            let xppl = self.node(xpp).left;
            if Some(xp) == xppl {
                let xppr = self.node(xpp).right;
                if let Some(u) = xppr.filter(|u| self.red(Some(*u))) {
                    self.edit(u, |n| n.red = false);
                    self.edit(xp, |n| n.red = false);
                    self.edit(xpp, |n| n.red = true);
                    x = xpp;
                    continue;
                }
                if self.node(xp).right == Some(x) {
                    x = xp;
                    root = self.rotate_left(root, x);
                    let Some(p) = self.node(x).parent else {
                        continue;
                    };
                    xp = p;
                    let Some(pp) = self.node(xp).parent else {
                        self.edit(xp, |n| n.red = false);
                        continue;
                    };
                    xpp = pp;
                }
                self.edit(xp, |n| n.red = false);
                self.edit(xpp, |n| n.red = true);
                root = self.rotate_right(root, xpp);
            } else {
                if let Some(u) = xppl.filter(|u| self.red(Some(*u))) {
                    self.edit(u, |n| n.red = false);
                    self.edit(xp, |n| n.red = false);
                    self.edit(xpp, |n| n.red = true);
                    x = xpp;
                    continue;
                }
                if self.node(xp).left == Some(x) {
                    x = xp;
                    root = self.rotate_right(root, x);
                    let Some(p) = self.node(x).parent else {
                        continue;
                    };
                    xp = p;
                    let Some(pp) = self.node(xp).parent else {
                        self.edit(xp, |n| n.red = false);
                        continue;
                    };
                    xpp = pp;
                }
                self.edit(xp, |n| n.red = false);
                self.edit(xpp, |n| n.red = true);
                root = self.rotate_left(root, xpp);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key sequences of the Java program that produced the expectations below (an LCG;
    /// `%` and shifts as in Java's `long`).
    fn seq(kind: u8, n: usize) -> Vec<i64> {
        let mut x: i64 = 42 + i64::from(kind);
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = x as u64;
                let i = i as i64;
                match kind {
                    1 => i * 64,
                    2 => ((((u >> 33) % 400) << 12) | (((u >> 10) & 1) << 40)) as i64,
                    3 => x >> 1,
                    4 => ((i % 37) << 20) + (i / 37) * 65536 * 3,
                    _ => i,
                }
            })
            .collect()
    }

    /// Iteration orders printed by OpenJDK 17's `HashMap<Long, Integer>` after `put`ting each
    /// sequence (`java JavaOrder.java`): (kind, puts, size, `h = h * 31 + key` over the order,
    /// the first keys). Kind 1 fills one bucket until it becomes a tree (9 keys at capacity
    /// 16 and 32 resize instead, the 11th at 64 treeifies), grows the tree and splits it at
    /// every resize; kinds 2 and 4 collide in the low and in the mixed high bits; kind 3 has
    /// negative and 64-bit ids.
    const JAVA: &[(u8, usize, usize, i64, &[i64])] = &[
        (
            1,
            200,
            200,
            -780819446575088384,
            &[
                3584, 0, 512, 1024, 1536, 2048, 2560, 3072, 4096, 4608, 5120, 5632,
            ],
        ),
        (
            1,
            11,
            11,
            157426974472075840,
            &[192, 0, 64, 128, 256, 320, 384, 448, 512, 576, 640],
        ),
        (
            1,
            60,
            60,
            -4928046948304084736,
            &[896, 0, 128, 256, 384, 512, 640, 768, 1024, 1152, 1280, 1408],
        ),
        (
            2,
            5000,
            798,
            -8128630298863620096,
            &[
                16384, 49152, 12288, 53248, 61440, 57344, 8192, 4096, 0, 32768, 28672, 20480,
            ],
        ),
        (
            3,
            1000,
            1000,
            2545512477793480978,
            &[
                664639506856467193,
                -2759061145720428809,
                2217900072733904899,
                1236966596407533143,
                3646001901840265324,
                -4053264745946025018,
                4111519268578127674,
                3450665061914495034,
                4060930049098461227,
                -350294236621622971,
                -1705767806329764075,
                -1091627280430511919,
            ],
        ),
        (
            4,
            3000,
            787,
            4643838376747204608,
            &[
                0, 196608, 393216, 589824, 786432, 983040, 1048576, 1179648, 1245184, 1376256,
                1441792, 1572864,
            ],
        ),
        (
            2,
            30,
            30,
            7994084164354383872,
            &[
                49152,
                1099511709696,
                1099511721984,
                147456,
                143360,
                233472,
                1099511877632,
                262144,
                1099512033280,
                1099512066048,
                512000,
                589824,
            ],
        ),
    ];

    #[test]
    fn the_order_is_openjdk_hashmaps() {
        for (kind, n, size, digest, first) in JAVA {
            let mut m = JavaHashOrder::default();
            for k in seq(*kind, *n) {
                m.put(k);
            }
            let keys = m.keys();
            assert_eq!(keys.len(), *size, "kind {kind} n {n}");
            assert_eq!(&keys[..first.len()], *first, "kind {kind} n {n}");
            let h = keys
                .iter()
                .fold(0i64, |h, k| h.wrapping_mul(31).wrapping_add(*k));
            assert_eq!(h, *digest, "kind {kind} n {n}");
        }
    }

    #[test]
    fn the_hash_mixes_the_high_bits_in() {
        assert_eq!(java_hash(5), 5);
        assert_eq!(java_hash(1 << 16), 1 << 16 | 1);
        assert_eq!(java_hash(1 << 32), 1);
        assert_eq!(java_hash(-1), 0);
    }

    #[test]
    fn capacity_doubles_past_three_quarters_and_a_put_again_keeps_the_place() {
        let mut m = JavaHashOrder::default();
        assert_eq!(m.capacity(), 0);
        for k in 0..12 {
            m.put(k);
        }
        assert_eq!(m.capacity(), 16);
        m.put(12);
        assert_eq!(m.capacity(), 32);
        m.put(40); // bucket 8 at 32, after 8
        m.put(0);
        assert_eq!(m.len(), 14);
        let keys = m.keys();
        assert_eq!(keys.iter().position(|k| *k == 40), Some(9));
    }
}
