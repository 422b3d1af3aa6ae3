-- wrk script: each write carries a batch of pipelined requests (TechEmpower's plaintext test
-- pipelines 16). Arguments, after "--": batch size (default 16), path (default /plaintext).
init = function(args)
   local depth = tonumber(args[1]) or 16
   local path = args[2] or "/plaintext"
   local batch = {}
   for i = 1, depth do
      batch[i] = wrk.format(nil, path)
   end
   req = table.concat(batch)
end

request = function()
   return req
end
