// Prints reference values of java.util.Random and Collections.shuffle for the Rust port
// (rigor-mr src/javarandom.rs). Run: javac -d /tmp RandomRef.java && java -cp /tmp RandomRef
import java.util.*;

public class RandomRef {
    public static void main(String[] args) {
        long[] seeds = {1L, 10001L, 42L};
        int[] bounds = {10, 16, 7, 1, 1000, 1 << 30, 0x7fffffff};
        for (long seed : seeds) {
            Random r = new Random(seed);
            StringBuilder sb = new StringBuilder("seed " + seed + " nextInt:");
            for (int i = 0; i < 5; i++) sb.append(' ').append(r.nextInt());
            System.out.println(sb);
            for (int b : bounds) {
                r = new Random(seed);
                sb = new StringBuilder("seed " + seed + " nextInt(" + b + "):");
                for (int i = 0; i < 8; i++) sb.append(' ').append(r.nextInt(b));
                System.out.println(sb);
            }
            r = new Random(seed);
            sb = new StringBuilder("seed " + seed + " nextLong:");
            for (int i = 0; i < 4; i++) sb.append(' ').append(r.nextLong());
            System.out.println(sb);
            r = new Random(seed);
            sb = new StringBuilder("seed " + seed + " nextDouble:");
            for (int i = 0; i < 4; i++) sb.append(' ').append(Double.doubleToRawLongBits(r.nextDouble()));
            System.out.println(sb + " (raw bits)");
            r = new Random(seed);
            sb = new StringBuilder("seed " + seed + " nextBoolean:");
            for (int i = 0; i < 8; i++) sb.append(' ').append(r.nextBoolean());
            System.out.println(sb);
            List<Integer> list = new ArrayList<>();
            for (int i = 0; i < 10; i++) list.add(i);
            Collections.shuffle(list, new Random(seed));
            System.out.println("seed " + seed + " shuffle(0..9): " + list);
            // Two shuffles in a row from one generator, then set_seed and an int.
            r = new Random(seed);
            List<Integer> a = new ArrayList<>(list);
            Collections.shuffle(a, r);
            Collections.shuffle(a, r);
            r.setSeed(seed + 1);
            System.out.println("seed " + seed + " shuffle twice: " + a + " then setSeed(seed+1).nextInt(): " + r.nextInt());
        }
    }
}
