import Wire

/// The secret part of a pairing code: two words from a list of 256 (16
/// bits), never sent to the server. Words, not digits: they read aloud
/// without ambiguity, type on any keyboard, and the list shares no word
/// with the safety words (so nobody compares the code instead of those).
public struct CodeSecret: Equatable, Sendable, CustomStringConvertible {
    public static let wordCount = 2
    /// Indices into `words`.
    public let indices: [UInt8]

    public init(indices: [UInt8]) {
        precondition(indices.count == Self.wordCount)
        self.indices = indices
    }

    public static func random(using rng: inout some RandomNumberGenerator) -> CodeSecret {
        CodeSecret(indices: (0..<wordCount).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
    }

    /// "brave-otter", case-insensitive, hyphens or spaces between words.
    public init?(text: String) {
        let parts = text.lowercased().split(whereSeparator: { $0 == "-" || $0 == " " })
        guard parts.count == Self.wordCount else { return nil }
        var indices: [UInt8] = []
        for part in parts {
            guard let i = Self.index[String(part)] else { return nil }
            indices.append(i)
        }
        self.indices = indices
    }

    /// The words joined by hyphens, as printed in the code.
    public var description: String { indices.map { Self.words[Int($0)] }.joined(separator: "-") }

    static let index: [String: UInt8] = Dictionary(uniqueKeysWithValues: words.enumerated().map { ($1, UInt8($0)) })

    /// The word's place in the list, if it is one (lower case).
    public static func index(of word: String) -> UInt8? { index[word] }

    /// The list word a mistyped one most likely meant, if one is within two edits.
    public static func closestWord(to typed: String) -> String? { Spelling.closest(to: typed, in: words) }

    /// 256 short, common English adjectives, none among the safety words.
    /// Changing this list changes every code: never reorder it.
    public static let words: [String] = [
        "able", "active", "actual", "adult", "agile", "airy", "alert", "alive",
        "alone", "amazed", "ample", "annual", "apt", "arid", "awake", "aware",
        "azure", "bare", "basic", "best", "big", "black", "bland", "blank",
        "blond", "blue", "blunt", "bold", "bony", "brave", "brief", "bright",
        "brisk", "broad", "brown", "bumpy", "busy", "calm", "candid", "casual",
        "cheery", "chief", "chilly", "civil", "clean", "clear", "clever", "cold",
        "cool", "cosy", "cozy", "crisp", "curly", "curvy", "cute", "daily",
        "damp", "dapper", "dark", "decent", "deep", "dense", "dim", "direct",
        "double", "dry", "dual", "dusty", "eager", "early", "east", "easy",
        "eerie", "elastic", "elder", "empty", "epic", "equal", "even", "exact",
        "exotic", "extra", "faint", "famous", "fancy", "far", "fast", "fiery",
        "fine", "firm", "fit", "flat", "fluffy", "fond", "frank", "free",
        "fresh", "frosty", "full", "funny", "fuzzy", "gentle", "giant", "gifted",
        "glad", "glossy", "golden", "good", "grand", "gray", "green", "happy",
        "hard", "hearty", "heavy", "high", "hollow", "hot", "huge", "humble",
        "humid", "hungry", "icy", "ideal", "inner", "jolly", "juicy", "jumbo",
        "keen", "kind", "kindly", "large", "late", "lavish", "lazy", "lean",
        "level", "light", "little", "lively", "local", "long", "loose", "loud",
        "lovely", "low", "loyal", "lucky", "lunar", "major", "marine", "mature",
        "mellow", "merry", "mighty", "mild", "minor", "misty", "modern", "moist",
        "narrow", "native", "near", "neat", "nice", "noble", "noisy", "normal",
        "novel", "oily", "old", "open", "outer", "oval", "pale", "polite",
        "prime", "proud", "pure", "quick", "quiet", "rapid", "rare", "raw",
        "ready", "rich", "rigid", "ripe", "rosy", "rough", "round", "royal",
        "rural", "rusty", "safe", "salty", "sandy", "sharp", "shiny", "short",
        "shy", "silent", "simple", "slim", "slow", "small", "smart", "smooth",
        "snowy", "soft", "solar", "solid", "spare", "spicy", "steep", "stiff",
        "still", "stormy", "strict", "strong", "sunny", "super", "sweet", "swift",
        "tall", "tame", "tart", "thick", "thin", "tidy", "tiny", "total",
        "tough", "true", "twin", "upper", "urban", "usual", "vague", "valid",
        "vast", "vivid", "warm", "wary", "west", "wet", "white", "wide",
        "wild", "windy", "wise", "witty", "woody", "young", "zany", "zesty",
    ]
}
