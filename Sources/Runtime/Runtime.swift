// Runtime: placeholder until its first source file lands.
