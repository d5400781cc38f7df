local r = vacate(M, 'peer_left')
emit(M, 'ev', 'left', 'room', r or '')
return done()
