vacate(M, 'peer_disconnected')
redis.call('PEXPIRE', qk, 60000)
return done()
