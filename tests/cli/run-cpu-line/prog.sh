# prog.sh N OFFSET: sleep 0.3 s in every other run (shifted by OFFSET), then
# count to N in awk
i=${TACHY_ITERATION:-0}
[ "$i" = warmup ] && i=0
if [ $(( (i + $2) % 2 )) = 0 ]; then sleep 0.3; fi
exec awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++); }'
