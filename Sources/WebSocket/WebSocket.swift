// WebSocket: placeholder until its first source file lands.
