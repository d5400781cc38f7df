import Terminal

/// The interactive chat and the stdin line reader moved to the `Terminal`
/// target. ChatCommand.swift (being rewritten on another branch) names them
/// without importing Terminal; these aliases keep it compiling untouched.
/// Once that file imports Terminal, this one can go.
typealias InteractiveChat = Terminal.InteractiveChat
typealias StandardInput = Terminal.StandardInput
