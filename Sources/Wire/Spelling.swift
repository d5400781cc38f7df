/// "Did you mean …?" for words people type: codes' words, subcommands, options.
public enum Spelling {
    /// The one candidate nearest to `typed` within `maxDistance` edits
    /// (insert, delete, replace, swap two neighbours); nil when none is that
    /// close or two are equally close.
    public static func closest(to typed: String, in candidates: some Sequence<String>, maxDistance: Int = 2) -> String? {
        let typed = Array(typed.lowercased())
        guard typed.count <= 32 else { return nil }
        var best: (word: String, distance: Int)?
        var tie = false
        for candidate in candidates {
            let d = distance(typed, Array(candidate.lowercased()))
            guard d <= maxDistance else { continue }
            if let current = best, d >= current.distance {
                if d == current.distance, candidate != current.word { tie = true }
                continue
            }
            best = (candidate, d)
            tie = false
        }
        return tie ? nil : best?.word
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent swaps).
    public static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
