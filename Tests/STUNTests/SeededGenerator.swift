import TestSupport
typealias SeededGenerator = SeededRandom
