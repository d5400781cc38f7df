return retryAfter(P .. 'miss:' .. ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]))
