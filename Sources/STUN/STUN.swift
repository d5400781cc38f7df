// STUN: placeholder until its first source file lands.
