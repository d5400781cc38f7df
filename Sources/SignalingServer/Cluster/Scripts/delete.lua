local code = liveRoom(ARGV[3])
if not code then return 0 end
removeRoom(code)
return 1
